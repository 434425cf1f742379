import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('commission'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8103),
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
  /** How often pending commissions whose due date has passed are moved to due. */
  COMMISSION_DUE_SWEEP_MS: env.positiveInt(5000),
  /**
   * How often the due sweep reads every pending commission even when no due time this process
   * wrote has come (others' and an earlier run's; see domain/due-schedule.ts).
   */
  COMMISSION_DUE_RECHECK_MS: env.positiveInt(300_000),
});
export type CommissionConfig = z.infer<typeof configSchema>;

export const loadCommissionConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
