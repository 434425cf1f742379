/** REST shapes of webhook endpoints and their delivery log. */
import { z } from 'zod';

const timestamp = z.string().describe('ISO 8601 timestamp');

export const webhookEndpointViewSchema = z.object({
  id: z.string().describe('UUID'),
  url: z.string(),
  /** Event types sent to the endpoint; `*` means every type. */
  events: z.array(z.string()),
  enabled: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  /** Start of the current run of failed attempts (no success since); null while healthy. */
  failing_since: timestamp.nullable(),
  /** Set when the endpoint was disabled automatically; cleared when it is enabled again. */
  disabled_at: timestamp.nullable(),
  disabled_reason: z.string().nullable(),
  /** Only in the answer to create and to a secret rotation. */
  secret: z.string().optional(),
});
export type WebhookEndpointView = z.infer<typeof webhookEndpointViewSchema>;

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

export const webhookAttemptViewSchema = z.object({
  /** The `request.id` of the body sent. */
  request_id: z.string(),
  attempted_at: timestamp,
  response_status: z.number().int().nullable(),
  /** Null while the attempt is in flight. */
  duration_ms: z.number().nullable(),
  error: z.string().nullable(),
});
export type WebhookAttemptView = z.infer<typeof webhookAttemptViewSchema>;

export const webhookDeliveryViewSchema = z.object({
  id: z.string().describe('UUID'),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  state: z.enum(WEBHOOK_DELIVERY_STATES),
  attempts: z.array(webhookAttemptViewSchema),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryViewSchema>;
