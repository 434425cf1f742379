/**
 * The review queue: referrals the fraud checks flagged, with their signals, and (for owners)
 * approve or reject, one or many. Reads through the REST list (`listReferrals` with
 * `review_state` or `flagged`, affiliates expanded); each decision is the REST API's
 * `reviewReferral`, once per referral, so events, webhooks and the "decided once" rule are the
 * API's, and a referral that cannot be decided is reported by name while the others go ahead.
 */
import express, { type Request, type Response, type Router } from 'express';
import { OPERATIONS, REVIEW_STATES, type Paginated, type ReferralView } from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { date, state } from '../portal/page-parts';
import { bulkBody, bulkReport, bulkStatus, chosenIds, runEach, type Chosen } from './bulk-actions';
import {
  dataTable,
  readListQuery,
  rowAction,
  rules,
  type Column,
  type ListQuery,
  type ListSpec,
} from './components/data-table';
import { affiliateName } from './components/affiliate-name';
import { consoleCalls, type ConsoleCalls } from './console-data';
import { VIEWER_NOTE } from './console-act';
import { consolePage, message, ownerAction, session } from './console-http';
import type { PageDeps } from './console-pages';

const PAGE_SIZE = 25;
/** What the queue can show: a review state, or every referral with a signal. */
const SHOWS = [...REVIEW_STATES, 'flagged'] as const;
type Show = (typeof SHOWS)[number];
const DECISIONS = ['approve', 'reject'] as const;
type Decision = (typeof DECISIONS)[number];

export const REVIEWS_LIST: ListSpec = {
  path: '/console/reviews',
  filters: { show: rules.oneOf(SHOWS) },
  fixedOrder: '-created_at',
};

const SHOW_LABELS: Record<Show, string> = {
  open: 'Waiting for a decision',
  approved: 'Approved',
  rejected: 'Rejected',
  flagged: 'Every flagged referral',
};

const showOf = (q: ListQuery) => (q.filters.show ?? 'open') as Show;

export function reviewsRoutes({ rpc, once }: PageDeps): Router {
  const router = express.Router();

  const list = (calls: ConsoleCalls, q: ListQuery) =>
    calls.call('listReferrals', {
      query: {
        ...(showOf(q) === 'flagged' ? { flagged: 'true' } : { review_state: showOf(q) }),
        page: String(q.page),
        limit: String(PAGE_SIZE),
      },
      expand: ['affiliate'],
    });

  /** The list the form was posted from, with what was done on top. */
  const answer = async (res: Response, status: number, q: ListQuery, report?: SafeHtml) => {
    const page = await list(consoleCalls(rpc, res), q);
    consolePage(res, status, 'Review queue', pageBody(page, q, res, report));
  };

  router.get('/console/reviews', (req, res) =>
    answer(res, 200, readListQuery(REVIEWS_LIST, req.query)),
  );

  /** Runs one decision per chosen referral and answers the list with the outcome. */
  async function decide(req: Request, res: Response, decision: Decision, chosen: Chosen) {
    const calls = consoleCalls(rpc, res);
    const sent = (req.body ?? {}) as Record<string, unknown>;
    const note = typeof sent.note === 'string' ? sent.note.trim().slice(0, 1000) : '';
    const outcome = await runEach(
      chosen,
      async (id) => {
        await calls.call('reviewReferral', {
          params: { id },
          body: { decision, ...(note ? { note } : {}) },
        });
      },
      (id) => affiliateOfReferral(calls, id),
    );
    const verb = decision === 'approve' ? 'Approved' : 'Rejected';
    const report = bulkReport(outcome, (n) => `${verb} ${n} referral${n === 1 ? '' : 's'}.`);
    await answer(res, bulkStatus(outcome), readListQuery(REVIEWS_LIST, req.body), report);
  }

  // The bulk form: `action` is the decision, the ticked `ids` the referrals.
  router.post('/console/reviews', ...ownerAction(bulkBody, once), async (req, res) => {
    const action = String((req.body as Record<string, unknown>).action ?? '');
    if (!(DECISIONS as readonly string[]).includes(action)) {
      consolePage(res, 400, 'Bad request', message('Bad request', 'Choose approve or reject.'));
      return;
    }
    const chosen = chosenIds(req.body);
    if (chosen.ids.length + chosen.malformed.length === 0) {
      const back = html`<p><a href="/console/reviews">Back to the queue</a></p>`;
      consolePage(
        res,
        400,
        'Nothing chosen',
        message('Nothing chosen', 'Tick at least one referral.', back),
      );
      return;
    }
    await decide(req, res, action as Decision, chosen);
  });

  // A row's own button (a `formaction` of the bulk form): that referral only.
  router.post(
    '/console/reviews/:id/:decision',
    ...ownerAction(bulkBody, once),
    async (req, res) => {
      const decision = String(req.params.decision);
      if (!(DECISIONS as readonly string[]).includes(decision)) {
        consolePage(res, 404, 'Not found', message('Not found', 'There is no such action.'));
        return;
      }
      await decide(req, res, decision as Decision, chosenIds({ ids: String(req.params.id) }));
    },
  );
  return router;
}

/** A retrieved referral has no affiliate; its link's token names one (as tracking resolves it). */
async function affiliateOfReferral(calls: ConsoleCalls, id: string): Promise<string> {
  const referral = await calls.call('getReferral', { params: { id } });
  if (!referral.link) return id;
  const found = await calls.internal(OPERATIONS.resolveLinkToken, { token: referral.link.token });
  return affiliateName(found.affiliate);
}

function signals(r: ReferralView): SafeHtml {
  return html`<ul class="signals">
    ${(r.fraud_signals ?? []).map(
      (s) => html`<li><strong>${s.type}</strong>: ${s.detail} ${date(s.detected_at)}</li>`,
    )}
  </ul>`;
}

function pageBody(
  referrals: Paginated<ReferralView>,
  q: ListQuery,
  res: Response,
  report: SafeHtml | string = '',
) {
  const { csrfToken, role } = session(res);
  const open = (r: ReferralView) => r.review_state === 'open';
  // Owners decide; the form (and its row buttons) is there only when something can be decided.
  const decides = role === 'owner' && referrals.data.some(open);
  const who = (r: ReferralView) => (r.affiliate ? affiliateName(r.affiliate) : r.id);
  const columns: Column<ReferralView>[] = [
    {
      header: 'Affiliate',
      cell: (r) => html`${who(r)}<br /><span class="muted">${r.affiliate?.email ?? ''}</span>`,
    },
    {
      header: 'Referred',
      sortKey: 'created_at',
      cell: (r) => html`${date(r.created_at)}<br />${state(r.conversion_state)}`,
    },
    { header: 'Signals', cell: signals },
    {
      header: 'Review',
      cell: (r) =>
        html`${state(r.review_state ?? 'not held')}
        ${r.reviewed_at ? html`<br />${date(r.reviewed_at)}` : ''}
        ${r.review_note ? html`<br /><span class="muted">${r.review_note}</span>` : ''}`,
    },
  ];
  if (decides) {
    columns.push({
      header: 'Decide',
      cell: (r) =>
        open(r)
          ? html`${rowAction(`/console/reviews/${r.id}/approve`, 'Approve', who(r))}
            ${rowAction(`/console/reviews/${r.id}/reject`, 'Reject', who(r))}`
          : '',
    });
  }
  const table = dataTable({
    label: 'Flagged referrals',
    query: q,
    columns,
    rows: referrals.data,
    empty: 'Nothing to review here.',
    pagination: referrals.pagination,
    rowId: (r) => r.id,
    ...(decides
      ? {
          bulk: {
            action: '/console/reviews',
            csrf: csrfToken,
            buttons: [
              { value: 'approve', text: 'Approve selected' },
              { value: 'reject', text: 'Reject selected' },
            ],
            id: (r: ReferralView) => r.id,
            rowLabel: (r: ReferralView) => `the referral of ${who(r)}`,
            selectable: open,
            fields: html`<label for="note"
              >Note with the decision (optional)
              <textarea id="note" name="note" maxlength="1000" rows="2"></textarea>
            </label>`,
          },
        }
      : {}),
  });
  return html`<section>
    <h2>Review queue</h2>
    ${report}
    <p class="muted">
      Referrals the fraud checks flagged. A held one earns nothing until you approve it; rejecting
      voids its held commissions and deactivates it. A decision is final.
    </p>
    ${role === 'owner' ? '' : VIEWER_NOTE}
    <form class="filters" method="get" action="/console/reviews">
      <label for="show"
        >Show
        <select id="show" name="show">
          ${SHOWS.map(
            (value) =>
              html`<option value="${value}" ${value === showOf(q) ? html`selected` : ''}>
                ${SHOW_LABELS[value]}
              </option>`,
          )}
        </select></label
      >
      <button type="submit">Show</button>
    </form>
    ${table}
  </section>`;
}
