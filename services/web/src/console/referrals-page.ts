/**
 * The referrals page (`/console/referrals`): every referral of the merchant, newest first, 25 a
 * page, filtered in the URL by affiliate (id or e-mail), conversion state, customer e-mail, flagged and review
 * state. Read-only (viewers and owners see the same page; decisions are on the review queue).
 *
 * Reads the REST list (`listReferrals`, the operation behind `GET /v1/referrals`) with the
 * affiliate expanded, as the session's merchant, so another tenant's referrals cannot appear and
 * nothing is shown that the REST list does not give the merchant. The filters keep the REST
 * list's own names, so `/console/referrals?affiliate_id=…` asks what `/v1/referrals?…` asks;
 * `affiliate_id` also takes an affiliate's e-mail (merchants know them by it), which is looked up
 * as the session's merchant first (affiliate-filter.ts, as on the commissions page): an e-mail of
 * no affiliate of the merchant lists nothing.
 *
 * Unlike the other lists (which drop a value a filter does not accept), a bad filter value here
 * is a 400 page naming the filter: a merchant following a link "all of this affiliate's
 * referrals" with a broken id must not be shown every referral as if it were that affiliate's.
 */
import express, { type Router } from 'express';
import {
  CONVERSION_STATES,
  REVIEW_STATES,
  type Paginated,
  type ReferralView,
} from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { date, state } from '../portal/page-parts';
import {
  dataTable,
  readListQuery,
  rules,
  type Column,
  type KeyRule,
  type ListQuery,
  type ListSpec,
} from './components/data-table';
import { affiliateName } from './components/affiliate-name';
import { affiliateIdOf, noRows } from './affiliate-filter';
import { consoleCalls, type ConsoleCalls } from './console-data';
import { consolePage, message } from './console-http';
import type { PageDeps } from './console-pages';

const PAGE_SIZE = 25;
const FLAGGED = ['true', 'false'] as const;

/** A customer's e-mail as the REST list matches it (exactly, lower-cased by tracking). */
const emailRule: KeyRule = (raw) => {
  const text = raw.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(text) && text.length <= 254 ? text : undefined;
};

/** An affiliate's id, or its e-mail (looked up before the REST list is asked). */
const affiliateRule: KeyRule = (raw) =>
  raw.includes('@') ? emailRule(raw) : rules.id()(raw.trim());

export const REFERRALS_LIST: ListSpec = {
  path: '/console/referrals',
  filters: {
    affiliate_id: affiliateRule,
    conversion_state: rules.oneOf(CONVERSION_STATES),
    email: emailRule,
    flagged: rules.oneOf(FLAGGED),
    review_state: rules.oneOf(REVIEW_STATES),
  },
  fixedOrder: '-created_at',
};

/** What each filter accepts, in words, for the 400 page. */
const ACCEPTS: Record<string, string> = {
  affiliate_id: "an affiliate's id or e-mail",
  conversion_state: `one of ${CONVERSION_STATES.join(', ')}`,
  email: 'an e-mail address',
  flagged: 'true or false',
  review_state: `one of ${REVIEW_STATES.join(', ')}`,
  page: 'a page number (1, 2, …)',
};

/**
 * The query keys the page reads whose value it cannot use: a value its rule refuses, an empty
 * page, or a repeated or bracketed key (`?flagged[]=…`, `?flagged=true&flagged=false`).
 * Keys the page does not read (e.g. `utm_source`) are left alone, as on every other page.
 */
export function badFilters(query: Record<string, unknown>): string[] {
  const bad: string[] = [];
  for (const key of [...Object.keys(REFERRALS_LIST.filters), 'page']) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') bad.push(key);
    else if (key === 'page') {
      if (!/^[1-9]\d{0,5}$/.test(value)) bad.push(key);
    } else if (value.trim() !== '' && REFERRALS_LIST.filters[key]!(value) === undefined) {
      bad.push(key);
    }
  }
  return bad;
}

export function referralsRoutes({ rpc }: PageDeps): Router {
  const router = express.Router();
  router.get('/console/referrals', async (req, res) => {
    const bad = badFilters(req.query as Record<string, unknown>);
    if (bad.length) {
      consolePage(res, 400, 'Bad filter', badFilterPage(bad));
      return;
    }
    const q = readListQuery(REFERRALS_LIST, req.query);
    const list = await findReferrals(consoleCalls(rpc, res), q);
    consolePage(res, 200, 'Referrals', pageBody(list, q));
  });
  return router;
}

/** The REST list with the page's filters; an affiliate e-mail is asked for by its id. */
async function findReferrals(calls: ConsoleCalls, q: ListQuery): Promise<Paginated<ReferralView>> {
  const { affiliate_id: affiliate, ...rest } = q.filters;
  const affiliateId = affiliate ? await affiliateIdOf(calls, affiliate) : undefined;
  if (affiliateId === null) return noRows(q.page, PAGE_SIZE);
  return calls.call('listReferrals', {
    query: {
      ...rest,
      ...(affiliateId ? { affiliate_id: affiliateId } : {}),
      page: String(q.page),
      limit: String(PAGE_SIZE),
    },
    expand: ['affiliate'],
  });
}

function badFilterPage(bad: string[]): SafeHtml {
  return message(
    'Bad filter',
    'The list cannot be filtered by what the address asks for; nothing was listed.',
    html`<ul>
        ${bad.map((key) => html`<li><code>${key}</code> takes ${ACCEPTS[key] ?? 'one value'}.</li>`)}
      </ul>
      <p><a href="/console/referrals">All referrals</a></p>`,
  );
}

function affiliateCell(r: ReferralView): SafeHtml | string {
  const a = r.affiliate;
  if (!a) return '';
  return html`<a href="/console/affiliates/${a.id}">${affiliateName(a)}</a><br /><span class="muted"
      >${a.email}</span
    >`;
}

function fraudCell(r: ReferralView): SafeHtml | string {
  const signals = r.fraud_signals ?? [];
  if (signals.length === 0 && !r.review_state) return html`<span class="muted">None</span>`;
  return html`${signals.length ? html`Flagged: ${signals.map((s) => s.type).join(', ')}` : ''}
  ${r.review_state ? html`<br />Review: ${state(r.review_state)}` : ''}`;
}

const select = (
  key: string,
  label: string,
  values: readonly string[],
  q: ListQuery,
  words: Record<string, string> = {},
) =>
  html`<label for="${key}"
    >${label}
    <select id="${key}" name="${key}">
      <option value="">All</option>
      ${values.map(
        (value) =>
          html`<option value="${value}" ${value === q.filters[key] ? html`selected` : ''}>
            ${words[value] ?? value}
          </option>`,
      )}
    </select></label
  >`;

function filters(q: ListQuery): SafeHtml {
  const f = q.filters;
  return html`<form class="filters" method="get" action="/console/referrals">
    <label for="affiliate_id"
      >Affiliate (id or e-mail)
      <input
        id="affiliate_id"
        name="affiliate_id"
        type="search"
        value="${f.affiliate_id ?? ''}"
        autocomplete="off"
    /></label>
    ${select('conversion_state', 'State', CONVERSION_STATES, q)}
    <label for="email"
      >Customer e-mail
      <input id="email" name="email" type="search" value="${f.email ?? ''}" autocomplete="off"
    /></label>
    ${select('flagged', 'Fraud signals', FLAGGED, q, { true: 'Flagged', false: 'Not flagged' })}
    ${select('review_state', 'Review', REVIEW_STATES, q)}
    <button type="submit">Filter</button>
  </form>`;
}

function pageBody(list: Paginated<ReferralView>, q: ListQuery): SafeHtml {
  const columns: Column<ReferralView>[] = [
    { header: 'Created', sortKey: 'created_at', cell: (r) => date(r.created_at) },
    { header: 'Affiliate', cell: affiliateCell },
    {
      header: 'State',
      cell: (r) =>
        html`${state(r.conversion_state)}${r.deactivated_at ? html` ${state('deactivated')}` : ''}`,
    },
    { header: 'Visits', num: true, cell: (r) => r.visits },
    { header: 'Customer', cell: (r) => r.customer?.email },
    { header: 'Fraud', cell: fraudCell },
  ];
  const total = list.pagination.total_count;
  const filtered = Object.keys(q.filters).length > 0;
  return html`<section>
    <h2>Referrals</h2>
    <p class="muted">
      Visits that came through an affiliate's link, newest first: ${total}
      ${
        filtered
          ? html`match the filters. <a href="/console/referrals">Clear filters</a>`
          : 'in all.'
      }
      Flagged referrals are decided on the <a href="/console/reviews">review queue</a>.
    </p>
    ${filters(q)}
    ${dataTable({
      label: 'Referrals',
      query: q,
      columns,
      rows: list.data,
      empty: 'No referrals found.',
      pagination: list.pagination,
      rowId: (r) => r.id,
    })}
  </section>`;
}
