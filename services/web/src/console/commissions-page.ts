/**
 * The commissions page: filter by state, affiliate (e-mail or id) and creation dates, kept in
 * the URL; owners void unpaid commissions, one or many. Reads through the commission service's
 * findCommissions (the REST list's use case plus the date range the public list lacks); each
 * void is the REST API's `deleteCommission`, once per commission, so `commission.voided` and its
 * webhook fire as with the API, and one that cannot be voided (paid) is reported by name while
 * the others are voided. There is no "approve": the API has none (a held commission is released
 * by approving its referral on the review queue).
 */
import express, { type Request, type Response, type Router } from 'express';
import {
  COMMISSION_STATES,
  OPERATIONS,
  type CommissionState,
  type CommissionView,
  type Paginated,
} from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { date, money, state } from '../portal/page-parts';
import { affiliateIdOf, noRows } from './affiliate-filter';
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
const DAY_MS = 86_400_000;

/** An affiliate's e-mail (looked up) or id; anything else is dropped. */
const affiliateRule = (raw: string) => {
  const text = raw.trim();
  return text.includes('@') && text.length <= 254 ? text.toLowerCase() : rules.id()(text);
};

export const COMMISSIONS_LIST: ListSpec = {
  path: '/console/commissions',
  filters: {
    state: rules.oneOf(COMMISSION_STATES),
    affiliate: affiliateRule,
    from: rules.day(),
    to: rules.day(),
  },
  fixedOrder: '-created_at',
};

export function commissionsRoutes({ rpc, once }: PageDeps): Router {
  const router = express.Router();

  const answer = async (res: Response, status: number, q: ListQuery, report?: SafeHtml) => {
    const page = await findCommissions(consoleCalls(rpc, res), q);
    consolePage(res, status, 'Commissions', pageBody(page, q, res, report));
  };

  router.get('/console/commissions', (req, res) =>
    answer(res, 200, readListQuery(COMMISSIONS_LIST, req.query)),
  );

  /** Voids each chosen commission and answers the list with the outcome. */
  async function voidEach(req: Request, res: Response, chosen: Chosen) {
    const calls = consoleCalls(rpc, res);
    const outcome = await runEach(
      chosen,
      async (id) => {
        await calls.call('deleteCommission', { params: { id } });
      },
      async (id) => {
        const c = await calls.call('getCommission', { params: { id } });
        return `${c.sale?.affiliate ? affiliateName(c.sale.affiliate) : id}, ${money(c.amount, c.currency)}`;
      },
    );
    const report = bulkReport(outcome, (n) => `Voided ${n} commission${n === 1 ? '' : 's'}.`);
    await answer(res, bulkStatus(outcome), readListQuery(COMMISSIONS_LIST, req.body), report);
  }

  // The bulk form: `action=void` with the ticked `ids`.
  router.post('/console/commissions', ...ownerAction(bulkBody, once), async (req, res) => {
    if ((req.body as Record<string, unknown>).action !== 'void') {
      consolePage(res, 400, 'Bad request', message('Bad request', 'There is no such action.'));
      return;
    }
    const chosen = chosenIds(req.body);
    if (chosen.ids.length + chosen.malformed.length === 0) {
      const back = html`<p><a href="/console/commissions">Back to the commissions</a></p>`;
      consolePage(
        res,
        400,
        'Nothing chosen',
        message('Nothing chosen', 'Tick at least one commission.', back),
      );
      return;
    }
    await voidEach(req, res, chosen);
  });

  // A row's own button (a `formaction` of the bulk form): that commission only.
  router.post('/console/commissions/:id/void', ...ownerAction(bulkBody, once), (req, res) =>
    voidEach(req, res, chosenIds({ ids: String(req.params.id) })),
  );
  return router;
}

/** The day after `to` (the last day shown): everything created before that midnight. */
const endOf = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();

async function findCommissions(
  calls: ConsoleCalls,
  q: ListQuery,
): Promise<Paginated<CommissionView>> {
  const { state: wanted, affiliate, from, to } = q.filters;
  const affiliateId = affiliate ? await affiliateIdOf(calls, affiliate) : undefined;
  if (affiliateId === null) return noRows(q.page, PAGE_SIZE);
  return calls.internal(OPERATIONS.findCommissions, {
    ...(affiliateId ? { affiliate_id: affiliateId } : {}),
    ...(wanted ? { states: [wanted as CommissionState] } : {}),
    ...(from ? { created_since: `${from}T00:00:00.000Z` } : {}),
    ...(to ? { created_until: endOf(to) } : {}),
    page: q.page,
    limit: PAGE_SIZE,
  });
}

const unpaid = (c: CommissionView) => c.state === 'pending' || c.state === 'due';

function filters(q: ListQuery): SafeHtml {
  const f = q.filters;
  return html`<form class="filters" method="get" action="/console/commissions">
    <label for="state"
      >State
      <select id="state" name="state">
        <option value="">All</option>
        ${COMMISSION_STATES.map(
          (value) =>
            html`<option value="${value}" ${value === f.state ? html`selected` : ''}>
              ${value}
            </option>`,
        )}
      </select></label
    >
    <label for="affiliate"
      >Affiliate (e-mail or id)
      <input id="affiliate" name="affiliate" type="search" value="${f.affiliate ?? ''}"
    /></label>
    <label for="from"
      >Created from <input id="from" name="from" type="date" value="${f.from ?? ''}"
    /></label>
    <label for="to">Created to <input id="to" name="to" type="date" value="${f.to ?? ''}" /></label>
    <button type="submit">Filter</button>
  </form>`;
}

function pageBody(
  list: Paginated<CommissionView>,
  q: ListQuery,
  res: Response,
  report: SafeHtml | string = '',
) {
  const { csrfToken, role } = session(res);
  const voids = role === 'owner' && list.data.some(unpaid);
  const who = (c: CommissionView) => (c.sale?.affiliate ? affiliateName(c.sale.affiliate) : '');
  const described = (c: CommissionView) => `${who(c)} ${money(c.amount, c.currency)}`.trim();
  const columns: Column<CommissionView>[] = [
    {
      header: 'Affiliate',
      cell: (c) => html`${who(c)}<br /><span class="muted">${c.sale?.affiliate.email ?? ''}</span>`,
    },
    { header: 'Amount', num: true, cell: (c) => money(c.amount, c.currency) },
    {
      header: 'State',
      cell: (c) =>
        html`${state(c.state)} ${c.held ? html`<a href="/console/reviews">held for review</a>` : ''}`,
    },
    { header: 'Created', sortKey: 'created_at', cell: (c) => date(c.created_at) },
    { header: 'Due or paid', cell: (c) => date(c.state === 'paid' ? c.paid_at : c.due_at) },
  ];
  if (voids) {
    columns.push({
      header: 'Action',
      cell: (c) =>
        unpaid(c) ? rowAction(`/console/commissions/${c.id}/void`, 'Void', described(c)) : '',
    });
  }
  const table = dataTable({
    label: 'Commissions',
    query: q,
    columns,
    rows: list.data,
    empty: 'No commissions found.',
    pagination: list.pagination,
    rowId: (c) => c.id,
    ...(voids
      ? {
          bulk: {
            action: '/console/commissions',
            csrf: csrfToken,
            buttons: [{ value: 'void', text: 'Void selected' }],
            id: (c: CommissionView) => c.id,
            rowLabel: (c: CommissionView) => `the commission of ${described(c)}`,
            selectable: unpaid,
          },
        }
      : {}),
  });
  return html`<section>
    <h2>Commissions</h2>
    ${report} ${role === 'owner' ? '' : VIEWER_NOTE} ${filters(q)} ${table}
  </section>`;
}
