/**
 * Retention of auxiliary collections that grow with every event (processed-event records,
 * mail claims, idempotency keys, sessions, sign-in tokens): documents whose time field is older
 * than the rule's age are deleted in code, in bounded batches, by a service's interval job.
 * TTL indexes are not relied on: the local server does not apply them (docs/retention.md), and
 * a rule may declare one for MongoDB 7 as well. Each batch reads at most `batch` ids by the
 * time field (indexed on MongoDB 7; a scan on the local server, which keeps only unique
 * indexes) and deletes them by `_id`, so no single command holds the collection for long.
 */
import type { FilterQuery, Model } from 'mongoose';

export interface RetentionRule {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>;
  /** A date field; documents whose value is older than `keepMs` ago are deleted. */
  field: string;
  keepMs: number;
}

export interface PruneOptions {
  /** Ids read and deleted per command (default 1,000). */
  batch?: number;
  /** Batches per rule and run; the rest waits for the next run (default 50). */
  maxBatches?: number;
}

/** Documents deleted per collection by one run. */
export type PruneReport = Record<string, number>;

/** Deletes what `rules` no longer keep; `now` is injectable for tests. */
export async function pruneExpired(
  rules: RetentionRule[],
  now: Date = new Date(),
  opts: PruneOptions = {},
): Promise<PruneReport> {
  const report: PruneReport = {};
  for (const rule of rules) {
    const before = new Date(now.getTime() - rule.keepMs);
    report[rule.model.collection.collectionName] = await pruneBefore(
      rule.model,
      rule.field,
      before,
      opts,
    );
  }
  return report;
}

async function pruneBefore(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  field: string,
  before: Date,
  opts: PruneOptions,
): Promise<number> {
  const batch = opts.batch ?? 1_000;
  const filter = { [field]: { $lt: before } } as FilterQuery<unknown>;
  let deleted = 0;
  for (let i = 0; i < (opts.maxBatches ?? 50); i++) {
    const ids = (
      await model.find(filter, { _id: 1 }).limit(batch).lean<{ _id: unknown }[]>().exec()
    ).map((doc) => doc._id);
    if (ids.length === 0) break;
    // The time condition again: a document renewed since it was read is kept.
    const result = await model.deleteMany({ ...filter, _id: { $in: ids } }).exec();
    deleted += result.deletedCount;
    if (ids.length < batch) break;
  }
  return deleted;
}

/** The interval job (libs/kernel `IntervalJob`) that applies `rules`. */
export function retentionJob(
  rules: RetentionRule[],
  everyMs: number,
): { everyMs: number; run: () => Promise<PruneReport>; failure: string } {
  return { everyMs, run: () => pruneExpired(rules), failure: 'retention prune failed' };
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/**
 * How long a record of a handled event is kept: longer than any stream keeps an event
 * (`MAX_AGE_NS`, 30 days, libs/messaging/src/streams.ts), so no redelivery outlives it.
 */
export const EVENT_RECORD_KEEP_MS = 35 * DAY_MS;
