/** The webhook endpoint as the REST API shows it, and as `webhook_endpoint.*` events carry it. */
import { z } from 'zod';

const isoTimestamp = z.iso.datetime({ offset: true });

export const webhookEndpointViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  /** Start of the current run of failed attempts (no success since); null while healthy. */
  failing_since: isoTimestamp.nullable(),
  /** Set when the endpoint was disabled automatically; cleared when it is enabled again. */
  disabled_at: isoTimestamp.nullable(),
  disabled_reason: z.string().nullable(),
});
export type WebhookEndpointView = z.infer<typeof webhookEndpointViewSchema>;

/** `data` of `webhook_endpoint.disabled`: the endpoint right after it was disabled. */
export const webhookEndpointDisabledSchema = webhookEndpointViewSchema.extend({
  enabled: z.literal(false),
  disabled_at: isoTimestamp,
  disabled_reason: z.string(),
});
