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
  /** Where mails go (`smtp://user:pass@host:port`, `smtps://...`); unset: files in MAIL_OUTBOX_DIR. */
  // Blank counts as unset, so a deployment can pass `SMTP_URL=${SMTP_URL:-}` through.
  SMTP_URL: z.preprocess(
    (value) => (value === '' ? undefined : value),
    env.url(['smtp', 'smtps']).optional(),
  ),
  MAIL_FROM: z.string().min(3).default('Affiliate program <no-reply@affiliates.invalid>'),
  /** Without SMTP_URL, each mail is written here as an `.eml` file (relative to the working dir). */
  MAIL_OUTBOX_DIR: z.string().min(1).default('.local/outbox'),
  /** How long an e-mail confirmation link works. */
  EMAIL_CONFIRMATION_TTL_HOURS: env.positiveInt(72),
});
export type AffiliateConfig = z.infer<typeof configSchema>;

export const loadAffiliateConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
