/**
 * Webhook endpoints and their delivery log. The body schemas are checked before the handler
 * runs; the webhook service adds the one rule that depends on its configuration (IP literals of
 * private addresses, unless `WEBHOOK_ALLOW_PRIVATE_TARGETS`).
 */
import { z } from 'zod';
import { PUBLIC_EVENT_TYPES } from '../events';
import { isHttpUrl, optionalBoolean } from '../schemas/fields';
import { paginatedSchema } from '../views';
import {
  WEBHOOK_DELIVERY_STATES,
  webhookDeliveryViewSchema,
  webhookEndpointViewSchema,
} from '../views-webhook';
import { deletedSchema, idParams, multiValueQuery, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Webhook endpoints';
/** Subscribes to every event type, including types added to the catalogue later. */
export const ALL_EVENTS = '*';
const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/**
 * `events[]=a&events[]=b` (a form list or a JSON array) or `events=a,b`: blanks dropped,
 * duplicates merged, `*` alone when it is among them; every name must be a public event type.
 */
const events = z
  .union([z.string(), z.array(z.string())], { error: 'Events must be a list of event types' })
  .transform((raw, ctx) => {
    const items = typeof raw === 'string' ? raw.split(',') : raw;
    const names = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
    if (names.length === 0) {
      ctx.addIssue({ code: 'custom', message: "Events can't be blank", input: raw });
      return z.NEVER;
    }
    const unknown = names.filter((name) => name !== ALL_EVENTS && !KNOWN_EVENT_TYPES.has(name));
    for (const name of unknown) {
      ctx.addIssue({
        code: 'custom',
        message: `Events contains an unknown event type: ${name}`,
        input: raw,
      });
    }
    if (unknown.length > 0) return z.NEVER;
    return names.includes(ALL_EVENTS) ? [ALL_EVENTS] : names;
  })
  .describe(
    'Event types to send (`events[]=a&events[]=b`, or comma-separated); `*` for all: ' +
      PUBLIC_EVENT_TYPES.join(', '),
  );

const url = z
  .string({ error: (issue) => (issue.input == null ? "Url can't be blank" : 'Url is invalid') })
  .trim()
  .min(1, { error: "Url can't be blank", abort: true })
  .max(2048, { error: 'Url is too long (maximum is 2048 characters)', abort: true })
  .refine(isHttpUrl, { error: 'Url must be an absolute http(s) URL', abort: true })
  .describe('Absolute http(s) URL that receives the signed POSTs');

export const listWebhookEndpoints = defineOperation({
  name: 'listWebhookEndpoints',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'List webhook endpoints',
  http: { method: 'get', path: '/v1/webhook_endpoints' },
  query: z.object({ ...pageQuery }),
  response: {
    status: 200,
    description: 'A page of endpoints',
    body: paginatedSchema(webhookEndpointViewSchema),
  },
  errors: [400],
});

export const createWebhookEndpoint = defineOperation({
  name: 'createWebhookEndpoint',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Create a webhook endpoint (answers its signing secret, once)',
  http: { method: 'post', path: '/v1/webhook_endpoints' },
  body: z.object({ url, events: events.optional(), enabled: optionalBoolean('Enabled') }),
  invalid: 'Could not create webhook endpoint.',
  response: {
    status: 200,
    description: 'The new endpoint, with `secret`',
    body: webhookEndpointViewSchema,
  },
  errors: [400, 422],
});

export const getWebhookEndpoint = defineOperation({
  name: 'getWebhookEndpoint',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a webhook endpoint',
  http: { method: 'get', path: '/v1/webhook_endpoints/:id' },
  params: idParams,
  response: { status: 200, description: 'The endpoint', body: webhookEndpointViewSchema },
  errors: [404],
});

export const updateWebhookEndpoint = defineOperation({
  name: 'updateWebhookEndpoint',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Update a webhook endpoint',
  http: { method: 'put', path: '/v1/webhook_endpoints/:id', aliases: ['patch'] },
  params: idParams,
  body: z.object({
    url: url.optional(),
    events: events.optional(),
    enabled: optionalBoolean('Enabled'),
  }),
  invalid: 'Could not update webhook endpoint.',
  response: { status: 200, description: 'The updated endpoint', body: webhookEndpointViewSchema },
  errors: [400, 404, 422],
});

export const deleteWebhookEndpoint = defineOperation({
  name: 'deleteWebhookEndpoint',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Delete a webhook endpoint and its delivery log',
  http: { method: 'delete', path: '/v1/webhook_endpoints/:id' },
  params: idParams,
  response: { status: 200, description: 'What was deleted', body: deletedSchema },
  errors: [404],
});

export const rotateWebhookEndpointSecret = defineOperation({
  name: 'rotateWebhookEndpointSecret',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Rotate the signing secret (answers the new one, once; the old one signs too for 24 h)',
  http: { method: 'post', path: '/v1/webhook_endpoints/:id/rotate_secret' },
  params: idParams,
  response: {
    status: 200,
    description: 'The endpoint, with its new `secret`',
    body: webhookEndpointViewSchema,
  },
  errors: [404, 409],
});

export const listWebhookDeliveries = defineOperation({
  name: 'listWebhookDeliveries',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: "An endpoint's delivery log, with every attempt",
  http: { method: 'get', path: '/v1/webhook_endpoints/:id/deliveries' },
  params: idParams,
  query: z.object({ ...multiValueQuery('state', WEBHOOK_DELIVERY_STATES), ...pageQuery }),
  response: {
    status: 200,
    description: 'A page of deliveries',
    body: paginatedSchema(webhookDeliveryViewSchema),
  },
  errors: [400, 404],
});

export const redeliverWebhookDelivery = defineOperation({
  name: 'redeliverWebhookDelivery',
  owner: 'webhook',
  auth: 'apiSecret',
  tag,
  summary: 'Send a delivery again (same webhook-id, a new 3-day retry window)',
  http: { method: 'post', path: '/v1/webhook_deliveries/:id/redeliver' },
  params: idParams,
  response: {
    status: 200,
    description: 'The delivery, due at once',
    body: webhookDeliveryViewSchema,
  },
  errors: [404],
});
