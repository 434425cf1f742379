/**
 * Webhook endpoints and their delivery log. The body schemas here describe the wire format;
 * the webhook service adds rules that depend on its configuration (private target addresses).
 */
import { z } from 'zod';
import { PUBLIC_EVENT_TYPES } from '../events';
import { optionalBoolean } from '../schemas/fields';
import { paginatedSchema } from '../views';
import {
  WEBHOOK_DELIVERY_STATES,
  webhookDeliveryViewSchema,
  webhookEndpointViewSchema,
} from '../views-webhook';
import { deletedSchema, idParams, multiValueQuery, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Webhook endpoints';
const events = z
  .array(z.enum(['*', ...PUBLIC_EVENT_TYPES]))
  .describe('Event types to send (`events[]=a&events[]=b`, or comma-separated); `*` for all');
const url = z.string().describe('Absolute http(s) URL that receives the signed POSTs');

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
