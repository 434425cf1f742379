/**
 * The webhooks page (`/console/webhooks`): the merchant's endpoints (listWebhookEndpoints, paged
 * in the URL) with their health as the webhook service records it: healthy, failing since
 * (`failing_since`), disabled by the service (`disabled_at`, `disabled_reason`) or turned off.
 * Each links to its delivery log (./webhook-log-page.ts). Nothing secret is shown: the list
 * operation never answers an endpoint's signing secret, and the page has no column for one.
 *
 * Owners can turn an endpoint off and on again (`updateWebhookEndpoint` with `enabled`, the
 * REST API's PUT): turning on one the platform disabled after days of failures is how its
 * deliveries resume once the receiver is fixed (health starts afresh). Creating endpoints stays
 * with the API: DESIGN.md section 3 lists health, the log and redelivery for this page, and a
 * new endpoint needs a receiver written in code and its signing secret, shown once.
 */
import express, { type Router } from 'express';
import type { WebhookEndpointView } from '@aff/contracts';
import { html } from '../portal/html';
import {
  backToList,
  dataTable,
  readListQuery,
  rowForm,
  rules,
  type Column,
  type ListSpec,
} from './components/data-table';
import { consoleCalls } from './console-data';
import { consolePage, message, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';
import { act, actionToken, dateCell, notice } from './console-act';

const PAGE_SIZE = 25;

export const ENDPOINTS_LIST: ListSpec = {
  path: '/console/webhooks',
  filters: {},
  fixedOrder: '-created_at',
};

/** The endpoint's health in words, from the fields the webhook service keeps. */
export function health(e: WebhookEndpointView) {
  if (!e.enabled && e.disabled_at) {
    return html`<span class="state bad">Disabled</span> by the platform since
      ${dateCell(e.disabled_at)}${e.disabled_reason ? html`: ${e.disabled_reason}` : ''}`;
  }
  if (!e.enabled) return html`<span class="state">Turned off</span>`;
  if (e.failing_since) {
    return html`<span class="state bad">Failing</span> since ${dateCell(e.failing_since)}`;
  }
  return html`<span class="state good">Healthy</span>`;
}

export const eventsText = (e: WebhookEndpointView) =>
  e.events.includes('*') ? 'All events' : e.events.join(', ');

const SWITCHES: Record<string, boolean> = { enable: true, disable: false };
const isId = rules.id();

export function webhooksRoutes({ rpc, body, once }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/webhooks', async (req, res) => {
    const q = readListQuery(ENDPOINTS_LIST, req.query);
    const list = await consoleCalls(rpc, res).call('listWebhookEndpoints', {
      query: { page: String(q.page), limit: String(PAGE_SIZE) },
    });
    const columns: Column<WebhookEndpointView>[] = [
      {
        header: 'Endpoint',
        cell: (e) =>
          html`<a href="/console/webhooks/${e.id}" class="url"
            >${e.url}<span class="sr"> (delivery log)</span></a
          >`,
      },
      { header: 'Health', cell: health },
      { header: 'Events', cell: eventsText },
      { header: 'Created', sortKey: 'created_at', cell: (e) => dateCell(e.created_at) },
    ];
    const csrf = actionToken(res);
    if (csrf)
      columns.push({
        header: 'Action',
        cell: (e) =>
          e.enabled
            ? rowForm(`/console/webhooks/${e.id}/disable`, 'Turn off', e.url, csrf, q)
            : rowForm(`/console/webhooks/${e.id}/enable`, 'Turn on', e.url, csrf, q),
      });
    consolePage(
      res,
      200,
      'Webhooks',
      html`${notice(req.query)}
        <section aria-labelledby="endpoints-heading">
          <h2 id="endpoints-heading">Webhook endpoints</h2>
          <p class="muted">
            Open an endpoint to see its delivery log (each attempt's response code) and to send a
            delivery again. Turning an endpoint on again (after the platform disabled it, once its
            receiver is fixed) resumes its deliveries. Endpoints are added and changed through the
            API.
          </p>
          ${dataTable({
            label: 'Webhook endpoints',
            query: q,
            columns,
            rows: list.data,
            pagination: list.pagination,
            empty: 'No webhook endpoints.',
          })}
        </section>`,
    );
  });

  router.post('/console/webhooks/:id/:action', ...ownerAction(body, once), async (req, res) => {
    const action = String(req.params.action);
    const id = isId(String(req.params.id));
    if (!id || !Object.hasOwn(SWITCHES, action)) {
      consolePage(res, 404, 'Not found', message('Not found', 'There is no such action.'));
      return;
    }
    await act(rpc, res, async (calls) => {
      await calls.call('updateWebhookEndpoint', {
        params: { id },
        body: { enabled: SWITCHES[action] },
      });
      const back = backToList(ENDPOINTS_LIST, req.body);
      return `${back}${back.includes('?') ? '&' : '?'}done=${action}d`;
    });
  });
  return router;
}
