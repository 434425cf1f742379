import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('tracking'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8102),
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
  /** `customer.platform` of referrals: the payment processor's name. */
  PROCESSOR_PLATFORM_NAME: z.string().min(1).default('processor'),
});
export type TrackingConfig = z.infer<typeof configSchema>;

export const loadTrackingConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
