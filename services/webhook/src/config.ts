import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('webhook'),
  HEALTH_PORT: z.coerce.number().int().min(-1).max(65535).default(8105),
  /**
   * Deliveries to loopback, link-local and private addresses are refused unless this is true
   * (a merchant must not reach the platform's own network). The local launcher sets it.
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: env.flag(false),
  /** Multiplies every wait of the retry schedule; tests compress 3 days with e.g. 0.0001. */
  WEBHOOK_TIME_SCALE: env.positiveNumber(1),
  /**
   * An endpoint whose attempts have all failed for this long is disabled (5 days; multiplied by
   * `WEBHOOK_TIME_SCALE`, like the three durations below).
   */
  WEBHOOK_DISABLE_AFTER_MS: env.positiveInt(5 * 24 * 3600 * 1000),
  /** After a rotation, requests carry the previous secret's signature too for this long (24 h). */
  WEBHOOK_SECRET_OVERLAP_MS: env.positiveInt(24 * 3600 * 1000),
  /** Finished deliveries and their attempts are deleted this long after they finished (30 days). */
  WEBHOOK_LOG_RETENTION_MS: env.positiveInt(30 * 24 * 3600 * 1000),
  /** How often the delivery log is pruned (not scaled). */
  WEBHOOK_PRUNE_INTERVAL_MS: env.positiveInt(3600 * 1000),
  /** How often events left in the endpoints' outbox by a crash are relayed. */
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
  /** A request that has not answered within this is a failed attempt. */
  WEBHOOK_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * How long an event's ack waits for its new deliveries' first answers (each stores its
   * delivery); past it, those still sending are stored pending. Below the consumer's ack wait
   * (10 s), or the event would be redelivered while it waits.
   */
  WEBHOOK_FIRST_ANSWER_WAIT_MS: z.coerce.number().int().positive().max(8000).default(2000),
  /** How often the stored schedule is read for due deliveries. */
  WEBHOOK_POLL_MS: env.positiveInt(1000),
  /** Requests in flight at once, over all endpoints. */
  WEBHOOK_CONCURRENCY: env.positiveInt(128),
  /** Requests in flight at once to one endpoint, so a slow one cannot take every slot. */
  WEBHOOK_ENDPOINT_CONCURRENCY: env.positiveInt(32),
});
export type WebhookConfig = z.infer<typeof configSchema>;

/**
 * `WEBHOOK_MONGO_DB` overrides `MONGO_DB` for this service alone: two systems sharing one
 * MongoDB server (the tests' isolated systems) must not poll each other's delivery schedule.
 */
export const loadWebhookConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, {
    ...source,
    MONGO_DB: source.WEBHOOK_MONGO_DB ?? source.MONGO_DB,
  });
