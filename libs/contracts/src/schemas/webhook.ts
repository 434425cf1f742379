/** `data` of `webhook_endpoint.disabled`: the endpoint (as the REST API shows it) right after it was disabled. */
import { z } from 'zod';
import { webhookEndpointViewSchema } from '../views-webhook';

const isoTimestamp = z.iso.datetime({ offset: true });

export const webhookEndpointDisabledSchema = webhookEndpointViewSchema.extend({
  enabled: z.literal(false),
  disabled_at: isoTimestamp,
  disabled_reason: z.string(),
});
