import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('payout'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8104),
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
  /** How often the scheduler bundles due commissions for every merchant; 0 turns it off. */
  PAYOUT_GENERATE_INTERVAL_MS: nonNegativeInt(0),
  /** Payments completed at once by one process. */
  PAYOUT_PAY_CONCURRENCY: env.positiveInt(4),
  /** How often unfinished payments (a crashed process's, or failed ones) are looked for. */
  PAYOUT_JOB_SWEEP_MS: env.positiveInt(1000),
  /**
   * How long (after its processing delay) a payment may stay unfinished before any process
   * takes it over. Completion is a unique insert, so a takeover can never pay twice.
   */
  PAYOUT_JOB_LEASE_MS: env.positiveInt(15_000),
  /**
   * Time a payment stays `processing` before it is completed. 0 in production (no payout
   * provider is called yet); fault tests raise it to stop a process in between.
   */
  PAYOUT_PROCESSING_DELAY_MS: nonNegativeInt(0),
  /** The gateway's public base URL: where an export's files download. */
  PUBLIC_URL: z.url({ error: 'must be an absolute URL' }).default('http://127.0.0.1:8080'),
  /** How often unfinished exports (a crashed process's) are looked for. */
  PAYOUT_EXPORT_SWEEP_MS: env.positiveInt(1000),
  /**
   * How long a step of an export may stay untouched before the recovery finishes it, or rolls
   * back a creation (its client got no answer). Longer than any one creation step.
   */
  PAYOUT_EXPORT_LEASE_MS: env.positiveInt(60_000),
  /** Pause before each payout an export takes: 0 in production; fault tests raise it. */
  PAYOUT_EXPORT_STEP_DELAY_MS: nonNegativeInt(0),
});
export type PayoutConfig = z.infer<typeof configSchema>;

export const loadPayoutConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
