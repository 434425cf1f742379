/**
 * One affiliate (`/console/affiliates/:id`): who they are, their links with counts, fraud
 * signals (their flagged referrals), recent referrals, commissions and payouts, and the owners'
 * actions (./affiliate-actions.ts); the referrals block links to all of them on the referrals page.
 * Reads the REST API's operations with an affiliate filter:
 * getAffiliate, listReferrals (`affiliate_id`, and `flagged=true`), listCommissions, listPayouts.
 */
import express, { type Router } from 'express';
import { formatMoney } from '@aff/api';
import type {
  AffiliateView,
  CommissionView,
  LinkView,
  Paginated,
  PayoutView,
  ReferralView,
} from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { date, referralCounts, state } from '../portal/page-parts';
import { actionToken } from './console-act';
import { dataTable, readListQuery, rules, type Column } from './components/data-table';
import { consoleCalls, ConsoleReplyError } from './console-data';
import { consolePage, message } from './console-http';
import type { PageDeps } from './console-pages';
import { actionForm } from './components/action-form';

const RECENT = '10';
const isId = rules.id();

const DONE: Record<string, string> = {
  disable: 'Affiliate disabled.',
  enable: 'Affiliate enabled.',
  suspicious: 'Affiliate marked suspicious.',
  exempt:
    'Affiliate exempt from fraud checks: signals are still recorded, nothing is held or blocked.',
  unexempt: 'Fraud checks apply to this affiliate again.',
};

export function affiliateRoutes({ rpc }: PageDeps): Router {
  const router = express.Router();
  router.get('/console/affiliates/:id', async (req, res) => {
    const id = isId(String(req.params.id));
    const calls = consoleCalls(rpc, res);
    const affiliate = id
      ? await calls.call('getAffiliate', { params: { id } }).catch((error: unknown) => {
          if (error instanceof ConsoleReplyError && error.status === 404) return null;
          throw error;
        })
      : null;
    if (!id || !affiliate) {
      consolePage(res, 404, 'Not found', message('Not found', 'There is no such affiliate.'));
      return;
    }
    const recent = { affiliate_id: id, limit: RECENT };
    const [referrals, flagged, commissions, payouts] = await Promise.all([
      calls.call('listReferrals', { query: recent }),
      calls.call('listReferrals', { query: { ...recent, flagged: 'true' } }),
      calls.call('listCommissions', { query: recent }),
      calls.call('listPayouts', { query: recent }),
    ]);
    // Own keys only: `?done=constructor` must not reach Object.prototype.
    const key = String(req.query.done);
    const done = Object.hasOwn(DONE, key) ? DONE[key] : undefined;
    const body = html`${done ? html`<p class="notice" role="status">${done}</p>` : ''}
    ${summary(affiliate, actionToken(res))} ${linksSection(affiliate.links ?? [])}
    ${section('signals', 'Fraud signals', signalsTable(flagged))}
    ${section('referrals', 'Referrals', referralsTable(referrals, id))}
    ${section('commissions', 'Commissions', commissionsTable(commissions, id))}
    ${section('payouts', 'Payouts', payoutsTable(payouts, id))}`;
    consolePage(res, 200, `${affiliate.first_name} ${affiliate.last_name}`, body);
  });
  return router;
}

const section = (key: string, title: string, content: SafeHtml) =>
  html`<section aria-labelledby="${key}-h">
    <h2 id="${key}-h">${title}</h2>
    ${content}
  </section>`;

// `from` sends the owner back to this page rather than to the list (affiliate-actions.ts).
const actionButton = (id: string, action: string, text: string, csrf: string) =>
  actionForm({
    action: `/console/affiliates/${id}/${action}`,
    csrf,
    text,
    hidden: html`<input type="hidden" name="from" value="detail" />`,
  });

function summary(a: AffiliateView, csrf: string | null): SafeHtml {
  const stateActions = [
    a.state !== 'active' ? ['enable', 'Enable'] : null,
    a.state !== 'disabled' ? ['disable', 'Disable'] : null,
    a.state !== 'suspicious' ? ['suspicious', 'Mark suspicious'] : null,
  ].filter((x): x is string[] => x !== null);
  const exempt = a.fraud_exempt === true;
  return html`<section aria-labelledby="who-h">
    <h2 id="who-h">${a.first_name} ${a.last_name}</h2>
    <dl class="facts">
      <dt>E-mail</dt>
      <dd class="url">${a.email}</dd>
      <dt>State</dt>
      <dd data-field="state">${state(a.state)}</dd>
      <dt>Fraud checks</dt>
      <dd data-field="fraud-exempt">${exempt ? 'Exempt (signals recorded only)' : 'Applied'}</dd>
      <dt>Campaign</dt>
      <dd>${a.campaign?.name ?? '—'}</dd>
      <dt>Joined</dt>
      <dd>${date(a.created_at)}</dd>
    </dl>
    ${referralCounts(a)}
    ${
      csrf
        ? html`<div class="bulk" role="group" aria-label="Actions">
            ${stateActions.map(([action, text]) => actionButton(a.id, action!, text!, csrf))}
            ${actionButton(
              a.id,
              exempt ? 'unexempt' : 'exempt',
              exempt ? 'Apply fraud checks' : 'Exempt from fraud checks',
              csrf,
            )}
            ${actionButton(a.id, 'portal', 'Sign in to their portal', csrf)}
          </div>`
        : ''
    }
  </section>`;
}

/** The page's tables are single-page extracts: their state is not in the URL. */
const query = (path: string) => readListQuery({ path, filters: {}, fixedOrder: '-created_at' }, {});
const more = (list: Paginated<unknown>, href?: string) =>
  list.pagination.total_count > list.data.length
    ? html`<p class="muted">
        The newest ${list.data.length} of ${list.pagination.total_count}.
        ${href ? html`<a href="${href}">See them all</a>` : ''}
      </p>`
    : '';

function linksSection(links: LinkView[]): SafeHtml {
  const columns: Column<LinkView>[] = [
    { header: 'Link', cell: (l) => l.url },
    { header: 'Token', cell: (l) => l.token },
    { header: 'Visitors', num: true, cell: (l) => l.visitors },
    { header: 'Leads', num: true, cell: (l) => l.leads },
    { header: 'Conversions', num: true, cell: (l) => l.conversions },
  ];
  return section(
    'links',
    'Links',
    dataTable({ label: 'Links', query: query('/links'), columns, rows: links, empty: 'No links.' }),
  );
}

function signalsTable(list: Paginated<ReferralView>): SafeHtml {
  const columns: Column<ReferralView>[] = [
    { header: 'Referral started', sortKey: 'created_at', cell: (r) => date(r.created_at) },
    {
      header: 'Signals',
      cell: (r) =>
        html`<ul class="plain">
          ${(r.fraud_signals ?? []).map(
            (s) => html`<li><strong>${s.type}</strong>: ${s.detail} ${date(s.detected_at)}</li>`,
          )}
        </ul>`,
    },
    { header: 'Review', cell: (r) => (r.review_state ? state(r.review_state) : null) },
  ];
  return html`${dataTable({
    label: 'Flagged referrals',
    query: query('/signals'),
    columns,
    rows: list.data,
    empty: 'No fraud signals.',
  })}${more(list, '/console/reviews')}`;
}

function referralsTable(list: Paginated<ReferralView>, id: string): SafeHtml {
  const columns: Column<ReferralView>[] = [
    { header: 'Started', sortKey: 'created_at', cell: (r) => date(r.created_at) },
    { header: 'State', cell: (r) => state(r.conversion_state) },
    { header: 'Link', cell: (r) => r.link?.token },
    { header: 'Visits', num: true, cell: (r) => r.visits },
    { header: 'Customer', cell: (r) => r.customer?.email },
  ];
  return html`${dataTable({
    label: 'Referrals',
    query: query('/referrals'),
    columns,
    rows: list.data,
    empty: 'No referrals yet.',
  })}${allReferrals(list, id)}`;
}

/** The referrals page filtered to this affiliate (./referrals-page.ts), whatever the count. */
function allReferrals(list: Paginated<ReferralView>, id: string): SafeHtml | string {
  const total = list.pagination.total_count;
  if (total === 0) return '';
  return html`<p class="muted">
    ${total > list.data.length ? `The newest ${list.data.length} of ${total}. ` : ''}<a
      href="/console/referrals?affiliate_id=${id}"
      >All ${total} referral${total === 1 ? '' : 's'}</a
    >
  </p>`;
}

function commissionsTable(list: Paginated<CommissionView>, id: string): SafeHtml {
  const columns: Column<CommissionView>[] = [
    { header: 'Created', sortKey: 'created_at', cell: (c) => date(c.created_at) },
    { header: 'Amount', num: true, cell: (c) => formatMoney(c.amount, c.currency) },
    {
      header: 'State',
      cell: (c) => html`${state(c.state)}${c.held ? html` ${state('held')}` : ''}`,
    },
    { header: 'Due', cell: (c) => date(c.due_at) },
  ];
  return html`${dataTable({
    label: 'Commissions',
    query: query('/commissions'),
    columns,
    rows: list.data,
    empty: 'No commissions yet.',
  })}${more(list, `/console/commissions?affiliate=${id}`)}`;
}

function payoutsTable(list: Paginated<PayoutView>, id: string): SafeHtml {
  const columns: Column<PayoutView>[] = [
    { header: 'Created', sortKey: 'created_at', cell: (p) => date(p.created_at) },
    { header: 'Amount', num: true, cell: (p) => formatMoney(p.amount, p.currency) },
    { header: 'State', cell: (p) => state(p.state) },
    { header: 'Paid', cell: (p) => date(p.paid_at) },
  ];
  return html`${dataTable({
    label: 'Payouts',
    query: query('/payouts'),
    columns,
    rows: list.data,
    empty: 'No payouts yet.',
  })}${more(list, `/console/payouts?affiliate_id=${id}`)}`;
}
