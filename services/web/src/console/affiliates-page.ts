/**
 * The affiliates page: search (name, e-mail or link token), a state filter, paging in the URL,
 * and disable/enable for owners (posted to ./affiliate-actions.ts). Reads through the affiliate service's findAffiliates (the REST
 * list's use case with the filters the public list lacks) and resolveLinkToken; the action is
 * the REST API's updateAffiliate, so it fires the same events and webhooks. The list is in the
 * API's one order (newest first): no other sort is offered, as no operation can do one.
 */
import express, { type Router } from 'express';
import { AFFILIATE_STATES, OPERATIONS, type AffiliateView, type Paginated } from '@aff/contracts';
import { html } from '../portal/html';
import {
  dataTable,
  readListQuery,
  rowForm,
  rules,
  type Column,
  type ListQuery,
  type ListSpec,
} from './components/data-table';
import { consoleCalls, ConsoleReplyError, type ConsoleCalls } from './console-data';
import { actionToken } from './console-act';
import { consolePage } from './console-http';
import type { PageDeps } from './console-pages';

const PAGE_SIZE = 25;

export const AFFILIATES_LIST: ListSpec = {
  path: '/console/affiliates',
  filters: { q: rules.text(254), state: rules.oneOf(AFFILIATE_STATES) },
  fixedOrder: '-created_at',
};

export function affiliatesRoutes({ rpc }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/affiliates', async (req, res) => {
    const q = readListQuery(AFFILIATES_LIST, req.query);
    const list = await findAffiliates(consoleCalls(rpc, res), q);
    consolePage(res, 200, 'Affiliates', listBody(list, q, actionToken(res)));
  });

  return router;
}

/**
 * An address is looked up as an e-mail; other text first as a link token (as tracking resolves
 * it), else as part of a name. The state filter and paging apply to e-mail and name searches.
 */
async function findAffiliates(
  calls: ConsoleCalls,
  q: ListQuery,
): Promise<Paginated<AffiliateView>> {
  const text = q.filters.q ?? '';
  const state = q.filters.state as AffiliateView['state'] | undefined;
  if (text && !text.includes('@') && /^[A-Za-z0-9_-]{1,100}$/.test(text)) {
    const found = await calls
      .internal(OPERATIONS.resolveLinkToken, { token: text })
      .catch((error: unknown) => {
        if (error instanceof ConsoleReplyError) return null;
        throw error;
      });
    if (found && (!state || found.affiliate.state === state)) return single(found.affiliate);
  }
  return calls.internal(OPERATIONS.findAffiliates, {
    ...(state ? { state } : {}),
    ...(text.includes('@') ? { email: text.toLowerCase() } : {}),
    ...(text && !text.includes('@') ? { name: text.slice(0, 100) } : {}),
    page: q.page,
    limit: PAGE_SIZE,
  });
}

function single(affiliate: AffiliateView): Paginated<AffiliateView> {
  const pagination = {
    previous_page: null,
    current_page: 1,
    next_page: null,
    count: 1,
    limit: PAGE_SIZE,
    total_pages: 1,
    total_count: 1,
  };
  return { data: [affiliate], pagination };
}

/** `csrf` null: a viewer's list, with no action column (the server refuses their posts too). */
function listBody(list: Paginated<AffiliateView>, q: ListQuery, csrf: string | null) {
  const fullName = (a: AffiliateView) => `${a.first_name} ${a.last_name}`;
  const columns: Column<AffiliateView>[] = [
    {
      header: 'Name',
      cell: (a) => html`<a href="/console/affiliates/${a.id}">${fullName(a)}</a>`,
    },
    { header: 'E-mail', cell: (a) => a.email },
    { header: 'State', cell: (a) => html`<span class="state">${a.state}</span>` },
    {
      header: 'Joined',
      sortKey: 'created_at',
      cell: (a) => html`<time datetime="${a.created_at}">${a.created_at.slice(0, 10)}</time>`,
    },
    { header: 'Conversions', num: true, cell: (a) => a.conversions },
  ];
  if (csrf)
    columns.push({
      header: 'Action',
      cell: (a) => {
        const next = a.state === 'disabled' ? 'enable' : 'disable';
        const text = next === 'enable' ? 'Enable' : 'Disable';
        return rowForm(`/console/affiliates/${a.id}/${next}`, text, fullName(a), csrf, q);
      },
    });
  const state = q.filters.state ?? '';
  return html`<section>
    <h2>Affiliates</h2>
    <form class="filters" method="get" action="${AFFILIATES_LIST.path}" role="search">
      <label for="q"
        >Name, e-mail or link token
        <input id="q" name="q" type="search" value="${q.filters.q ?? ''}"
      /></label>
      <label for="state"
        >State
        <select id="state" name="state">
          <option value="">All</option>
          ${AFFILIATE_STATES.map(
            (value) =>
              html`<option value="${value}" ${value === state ? html`selected` : ''}>
                ${value}
              </option>`,
          )}
        </select></label
      >
      <button type="submit">Search</button>
    </form>
    ${dataTable({
      label: 'Affiliates',
      query: q,
      columns,
      rows: list.data,
      empty: 'No affiliates found.',
      pagination: list.pagination,
    })}
  </section>`;
}
