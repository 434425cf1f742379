/**
 * The webhooks page (`/console/webhooks`): the merchant's endpoints (listWebhookEndpoints, paged
 * in the URL) with their health as the webhook service records it: healthy, failing since
 * (`failing_since`), disabled by the service (`disabled_at`, `disabled_reason`) or turned off.
 * Each links to its delivery log (./webhook-log-page.ts). Nothing secret is shown: the list
 * operation never answers an endpoint's signing secret, and the page has no column for one.
 */
import express, { type Router } from 'express';
import type { WebhookEndpointView } from '@aff/contracts';
import { html } from '../portal/html';
import { dataTable, readListQuery, type Column, type ListSpec } from './components/data-table';
import { consoleCalls } from './console-data';
import { consolePage } from './console-http';
import type { PageDeps } from './console-pages';
import { dateCell } from './console-act';

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

export function webhooksRoutes({ rpc }: PageDeps): Router {
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
    consolePage(
      res,
      200,
      'Webhooks',
      html`<section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Webhook endpoints</h2>
        <p class="muted">
          Open an endpoint to see its delivery log (each attempt's response code) and to send a
          delivery again. Endpoints are added and changed through the API.
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
  return router;
}
