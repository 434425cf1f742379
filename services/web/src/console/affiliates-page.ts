/**
 * The affiliates page: search (e-mail or link token), paging in the URL, and disable/enable
 * for owners, through the REST API's own operations (listAffiliates, resolveLinkToken,
 * updateAffiliate), so an action fires the same events and webhooks.
 */
import express, { type Request, type Response, type Router } from 'express';
import { OPERATIONS, type AffiliateView, type Paginated } from '@aff/contracts';
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
    const pageNumber = Math.max(1, Math.min(10_000, Number(req.query.page) || 1));
    const list = await findAffiliates(rpc, session(res).merchantId, q, pageNumber, requestId(res));
    consolePage(res, 200, 'Affiliates', listBody(list, q, pageNumber, session(res).csrfToken));
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
  if (typeof sent.page === 'string' && /^\d+$/.test(sent.page)) query.set('page', sent.page);
  const text = query.toString();
  return text ? `/console/affiliates?${text}` : '/console/affiliates';
}

/**
 * An address searches the REST list's e-mail filter; anything else is tried as a link token
 * (resolveLinkToken, as tracking resolves it). The REST list has no name search yet.
 */
async function findAffiliates(
  rpc: RpcClient,
  merchantId: string,
  q: string,
  pageNumber: number,
  requestId: string,
): Promise<Paginated<AffiliateView>> {
  if (q && !q.includes('@')) {
    const found = await callInternal(
      rpc,
      OPERATIONS.resolveLinkToken,
      { merchant_id: merchantId, token: q },
      requestId,
    ).catch((error: unknown) => {
      if (isAppError(error) && error.status < 500) return null;
      throw error;
    });
    const data = found ? [found.affiliate] : [];
    const pagination = {
      previous_page: null,
      current_page: 1,
      next_page: null,
      count: data.length,
      limit: PAGE_SIZE,
      total_pages: 1,
      total_count: data.length,
    };
    return { data, pagination };
  }
  return callAsMerchant(
    rpc,
    merchantId,
    'listAffiliates',
    { query: { ...(q ? { email: q } : {}), page: String(pageNumber), limit: String(PAGE_SIZE) } },
    requestId,
  );
}

function listBody(list: Paginated<AffiliateView>, q: string, pageNumber: number, csrf: string) {
  const { total_pages: pages } = list.pagination;
  const link = (n: number) =>
    `/console/affiliates?${new URLSearchParams({ ...(q ? { q } : {}), page: String(n) }).toString()}`;
  const action = (affiliate: AffiliateView) => {
    const next = affiliate.state === 'disabled' ? 'enable' : 'disable';
    return html`<form
      class="inline"
      method="post"
      action="/console/affiliates/${affiliate.id}/${next}"
    >
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="q" value="${q}" />
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
        >E-mail or link token <input id="q" name="q" type="search" value="${q}"
      /></label>
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
