import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  /** Sessions and sign-in state only: the web service owns no business data. */
  MONGO_DB: z.string().min(1).default('web'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8106),
  /** The web service writes no events; the kernel's relay sweeps an empty outbox. */
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
  /** Base URL the platform is reached at: an `https:` one marks session cookies Secure. */
  PUBLIC_URL: z.url({ error: 'must be an absolute URL' }).default('http://127.0.0.1:8080'),
  /** How long an affiliate stays signed in to the portal after following a magic link. */
  PORTAL_SESSION_HOURS: env.positiveInt(8),
  /** Console sign-in mails: as the affiliate service's (blank SMTP_URL: files in the outbox). */
  SMTP_URL: z.preprocess(
    (value) => (value === '' ? undefined : value),
    env.url(['smtp', 'smtps']).optional(),
  ),
  MAIL_FROM: z.string().min(3).default('Affiliate program <no-reply@affiliates.invalid>'),
  MAIL_OUTBOX_DIR: z.string().min(1).default('.local/outbox'),
  /** Console sign-in requests per address and per 15 minutes (each mails a link). */
  CONSOLE_SIGN_IN_PER_EMAIL: env.positiveInt(5),
});
export type WebConfig = z.infer<typeof configSchema>;

export const loadWebConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
