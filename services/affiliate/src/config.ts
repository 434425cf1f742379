import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('affiliate'),
  /** Landing page of a merchant's default campaign until the merchant sets its own. */
  DEFAULT_CAMPAIGN_URL: z.url({ error: 'must be an absolute URL' }).default('https://example.com/'),
  /** The gateway's public base URL, for magic links. */
  PUBLIC_URL: z.url({ error: 'must be an absolute URL' }).default('http://127.0.0.1:8080'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8101),
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
});
export type AffiliateConfig = z.infer<typeof configSchema>;

export const loadAffiliateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
