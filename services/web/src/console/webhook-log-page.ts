/**
 * One webhook endpoint's delivery log (`/console/webhooks/:id`): the endpoint and its health
 * (getWebhookEndpoint), its deliveries newest first with a state filter and paging in the URL
 * (listWebhookDeliveries), every attempt's response code, time taken and error, and Redeliver
 * (the REST API's redeliverWebhookDelivery: same webhook-id, due at once). Another merchant's
 * endpoint or delivery is the operation's 404. The signing secret is never shown.
 */
import express, { type Response, type Router } from 'express';
import {
  WEBHOOK_DELIVERY_STATES,
  type WebhookAttemptView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from '@aff/contracts';
import { html } from '../portal/html';
import {
  backToList,
  dataTable,
  readListQuery,
  rowForm,
  rules,
  type Column,
  type ListQuery,
  type ListSpec,
} from './components/data-table';
import { consoleCalls, ConsoleReplyError } from './console-data';
import { consolePage, message, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';
import { act, actionToken, dateCell, notice } from './console-act';
import { eventsText, health } from './webhooks-page';

const PAGE_SIZE = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The log's list state: one spec per endpoint (its path), a state filter. */
export const logList = (endpointId: string): ListSpec => ({
  path: `/console/webhooks/${endpointId}`,
  filters: { state: rules.oneOf(WEBHOOK_DELIVERY_STATES) },
  fixedOrder: '-created_at',
});

export function webhookLogRoutes({ rpc, body, once }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/webhooks/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!UUID.test(id)) return notFound(res, `Webhook endpoint not found: ${id}`);
    const q = readListQuery(logList(id), req.query);
    const calls = consoleCalls(rpc, res);
    let endpoint: WebhookEndpointView;
    let log: Awaited<ReturnType<typeof calls.call<'listWebhookDeliveries'>>>;
    try {
      [endpoint, log] = await Promise.all([
        calls.call('getWebhookEndpoint', { params: { id } }),
        calls.call('listWebhookDeliveries', {
          params: { id },
          query: {
            ...(q.filters.state ? { state: q.filters.state } : {}),
            page: String(q.page),
            limit: String(PAGE_SIZE),
          },
        }),
      ]);
    } catch (error) {
      if (!(error instanceof ConsoleReplyError)) throw error;
      return notFound(res, error.message);
    }
    const csrf = actionToken(res);
    consolePage(
      res,
      200,
      'Webhook deliveries',
      html`${notice(req.query)} ${endpointSection(endpoint)} ${logSection(endpoint, log, q, csrf)}`,
    );
  });

  router.post(
    '/console/webhooks/:id/deliveries/:delivery/redeliver',
    ...ownerAction(body, once),
    async (req, res) => {
      const id = String(req.params.id);
      const delivery = String(req.params.delivery);
      if (!UUID.test(id)) return notFound(res, `Webhook endpoint not found: ${id}`);
      await act(rpc, res, async (calls) => {
        const sent = await calls.call('redeliverWebhookDelivery', { params: { id: delivery } });
        // Back to the log it belongs to (the delivery's, not a path the form named).
        const back = backToList(logList(sent.endpoint_id), req.body);
        return `${back}${back.includes('?') ? '&' : '?'}done=redelivered`;
      });
    },
  );
  return router;
}

function notFound(res: Response, text: string) {
  consolePage(res, 404, 'Not found', message('Not found', text));
}

function endpointSection(e: WebhookEndpointView) {
  return html`<section aria-labelledby="endpoint-heading">
    <h2 id="endpoint-heading">Webhook endpoint</h2>
    <dl class="facts">
      <dt>URL</dt>
      <dd class="url">${e.url}</dd>
      <dt>Health</dt>
      <dd>${health(e)}</dd>
      <dt>Events</dt>
      <dd>${eventsText(e)}</dd>
      <dt>Created</dt>
      <dd>${dateCell(e.created_at)}</dd>
    </dl>
    <p><a href="/console/webhooks">All endpoints</a></p>
  </section>`;
}

/** The last attempt's answer: its status code, or the transport's error. */
function lastAnswer(d: WebhookDeliveryView) {
  const last = d.attempts.at(-1);
  if (!last) return null;
  return answerOf(last);
}

function answerOf(a: WebhookAttemptView) {
  if (a.response_status !== null) return html`<span class="code">${a.response_status}</span>`;
  if (a.duration_ms === null) return 'in flight';
  return a.error ?? 'no answer';
}

function attemptsCell(d: WebhookDeliveryView) {
  if (d.attempts.length === 0) return '0';
  return html`<details>
    <summary>${d.attempts.length}<span class="sr"> attempts of ${d.event_type}</span></summary>
    <ol class="attempts">
      ${d.attempts.map(
        (a) =>
          html`<li>
            ${dateCell(a.attempted_at)}:
            ${answerOf(a)}${
              a.duration_ms !== null ? ` in ${a.duration_ms} ms` : ''
            }${a.error && a.response_status !== null ? html` (${a.error})` : ''}
          </li>`,
      )}
    </ol>
  </details>`;
}

function logSection(
  endpoint: WebhookEndpointView,
  log: { data: WebhookDeliveryView[]; pagination: Parameters<typeof dataTable>[0]['pagination'] },
  q: ListQuery,
  csrf: string | null,
) {
  const columns: Column<WebhookDeliveryView>[] = [
    { header: 'Created', sortKey: 'created_at', cell: (d) => dateCell(d.created_at) },
    {
      header: 'Event',
      cell: (d) => html`${d.event_type}<br /><code class="muted">${d.event_id}</code>`,
    },
    { header: 'State', cell: (d) => html`<span class="state">${d.state}</span>` },
    { header: 'Last answer', cell: lastAnswer },
    { header: 'Attempts', cell: attemptsCell },
    {
      header: 'Next attempt',
      cell: (d) => (d.next_attempt_at ? dateCell(d.next_attempt_at) : null),
    },
  ];
  if (csrf) {
    columns.push({
      header: 'Action',
      cell: (d) =>
        rowForm(
          `/console/webhooks/${endpoint.id}/deliveries/${d.id}/redeliver`,
          'Redeliver',
          `${d.event_type} ${d.created_at}`,
          csrf,
          q,
        ),
    });
  }
  return html`<section aria-labelledby="log-heading">
    <h2 id="log-heading">Delivery log</h2>
    <form class="filters" method="get" action="/console/webhooks/${endpoint.id}">
      <label for="state"
        >State
        <select id="state" name="state">
          <option value="">All</option>
          ${WEBHOOK_DELIVERY_STATES.map(
            (s) =>
              html`<option value="${s}" ${s === q.filters.state ? html`selected` : ''}>
                ${s}
              </option>`,
          )}
        </select></label
      >
      <button type="submit">Filter</button>
    </form>
    ${dataTable({
      label: 'Deliveries',
      query: q,
      columns,
      rows: log.data,
      pagination: log.pagination,
      empty: 'No deliveries.',
    })}
  </section>`;
}
