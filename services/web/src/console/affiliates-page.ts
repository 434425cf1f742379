/**
 * The affiliates page: search (name, e-mail or link token), a state filter, paging in the URL,
 * and disable/enable for owners. Reads through the affiliate service's findAffiliates (the REST
 * list's use case with the filters the public list lacks) and resolveLinkToken; the action is
 * the REST API's updateAffiliate, so it fires the same events and webhooks.
 */
import express, { type Request, type Response, type Router } from 'express';
import { AFFILIATE_STATES, OPERATIONS, type AffiliateView, type Paginated } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import { isAppError } from '@aff/api';
import { html } from '../portal/html';
import { callAsMerchant, ConsoleReplyError } from './console-data';
import { checkCsrf, consolePage, message, requireOwner, session } from './console-http';

const PAGE_SIZE = 25;

export function affiliatesRoutes(rpc: RpcClient, body: express.RequestHandler): Router {
  const router = express.Router();
  const requestId = (res: Response) => res.locals.requestId as string;

  router.get('/console/affiliates', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 254) : '';
    const state = (AFFILIATE_STATES as readonly string[]).includes(String(req.query.state))
      ? String(req.query.state)
      : '';
    const pageNumber = Math.max(1, Math.min(10_000, Math.floor(Number(req.query.page)) || 1));
    const filter = { q, state, page: pageNumber };
    const list = await findAffiliates(rpc, session(res).merchantId, filter, requestId(res));
    consolePage(res, 200, 'Affiliates', listBody(list, filter, session(res).csrfToken));
  });

  router.post(
    '/console/affiliates/:id/:action',
    body,
    checkCsrf,
    requireOwner,
    async (req, res) => {
      const action = req.params.action;
      if (action !== 'disable' && action !== 'enable') {
        consolePage(res, 404, 'Not found', message('Not found', 'There is no such action.'));
        return;
      }
      try {
        await callAsMerchant(
          rpc,
          session(res).merchantId,
          'updateAffiliate',
          {
            params: { id: String(req.params.id) },
            body: { state: action === 'disable' ? 'disabled' : 'active' },
          },
          requestId(res),
        );
      } catch (error) {
        if (!(error instanceof ConsoleReplyError)) throw error;
        consolePage(res, error.status, 'Not possible', message('That did not work', error.message));
        return;
      }
      res.redirect(303, backTo(req));
    },
  );
  return router;
}

/** Back to the list the form was on (only its own query keys survive). */
function backTo(req: Request): string {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  const query = new URLSearchParams();
  if (typeof sent.q === 'string' && sent.q) query.set('q', sent.q);
  if (
    typeof sent.state === 'string' &&
    (AFFILIATE_STATES as readonly string[]).includes(sent.state)
  )
    query.set('state', sent.state);
  if (typeof sent.page === 'string' && /^\d+$/.test(sent.page)) query.set('page', sent.page);
  const text = query.toString();
  return text ? `/console/affiliates?${text}` : '/console/affiliates';
}

interface Filter {
  q: string;
  state: string;
  page: number;
}

/**
 * An address is looked up as an e-mail; other text first as a link token (as tracking resolves
 * it), else as part of a name. The state filter and paging apply to e-mail and name searches.
 */
async function findAffiliates(
  rpc: RpcClient,
  merchantId: string,
  filter: Filter,
  requestId: string,
): Promise<Paginated<AffiliateView>> {
  const { q, state } = filter;
  if (q && !q.includes('@') && /^[A-Za-z0-9_-]{1,100}$/.test(q)) {
    const found = await callInternal(
      rpc,
      OPERATIONS.resolveLinkToken,
      { merchant_id: merchantId, token: q },
      requestId,
    ).catch((error: unknown) => {
      if (isAppError(error) && error.status < 500) return null;
      throw error;
    });
    if (found && (!state || found.affiliate.state === state)) return single(found.affiliate);
  }
  return callInternal(
    rpc,
    OPERATIONS.findAffiliates,
    {
      merchant_id: merchantId,
      ...(state ? { state: state as AffiliateView['state'] } : {}),
      ...(q && q.includes('@') ? { email: q.toLowerCase() } : {}),
      ...(q && !q.includes('@') ? { name: q.slice(0, 100) } : {}),
      page: filter.page,
      limit: PAGE_SIZE,
    },
    requestId,
  );
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

function listBody(list: Paginated<AffiliateView>, filter: Filter, csrf: string) {
  const { q, state, page: pageNumber } = filter;
  const { total_pages: pages } = list.pagination;
  const link = (n: number) =>
    `/console/affiliates?${new URLSearchParams({ ...(q ? { q } : {}), ...(state ? { state } : {}), page: String(n) }).toString()}`;
  const action = (affiliate: AffiliateView) => {
    const next = affiliate.state === 'disabled' ? 'enable' : 'disable';
    return html`<form
      class="inline"
      method="post"
      action="/console/affiliates/${affiliate.id}/${next}"
    >
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="q" value="${q}" />
      <input type="hidden" name="state" value="${state}" />
      <input type="hidden" name="page" value="${String(pageNumber)}" />
      <button type="submit" class="secondary">
        ${next === 'enable' ? 'Enable' : 'Disable'}
        <span class="sr">${affiliate.first_name} ${affiliate.last_name}</span>
      </button>
    </form>`;
  };
  return html`<section>
    <h2>Affiliates</h2>
    <form class="filters" method="get" action="/console/affiliates" role="search">
      <label for="q"
        >Name, e-mail or link token <input id="q" name="q" type="search" value="${q}"
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
    <div class="table" tabindex="0" role="region" aria-label="Affiliates">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">State</th>
            <th scope="col" class="num">Conversions</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          ${
            list.data.length
              ? list.data.map(
                  (a) =>
                    html`<tr>
                      <td>${a.first_name} ${a.last_name}</td>
                      <td>${a.email}</td>
                      <td><span class="state">${a.state}</span></td>
                      <td class="num">${a.conversions}</td>
                      <td>${action(a)}</td>
                    </tr>`,
                )
              : html`<tr>
                  <td colspan="5">No affiliates found.</td>
                </tr>`
          }
        </tbody>
      </table>
    </div>
    <nav class="pager" aria-label="Pages">
      ${pageNumber > 1 ? html`<a href="${link(pageNumber - 1)}">Previous page</a>` : ''}
      <span>Page ${pageNumber} of ${Math.max(1, pages)}</span>
      ${pageNumber < pages ? html`<a href="${link(pageNumber + 1)}">Next page</a>` : ''}
    </nav>
  </section>`;
}
