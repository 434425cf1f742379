/**
 * Data access shared by every merchant-scoped collection: every read and write is filtered by
 * `merchant_id`, so one merchant can never reach another's records. Writes may carry domain
 * events, stored in the same document write (see pending-events.ts); given the service's relay,
 * the repository hands them to it right after the write (a crash in between leaves them to the
 * outbox sweep), so no repository built on it writes relay code of its own.
 */
import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import { Batcher, type EventContext, type EventRelay, type PendingEvent } from '@aff/messaging';
import {
  PENDING_EVENTS_FIELD,
  relayItem,
  repairLeftoversWith,
  toStoredPendingEvent,
  type StoredPendingEvent,
} from './pending-events';
import { MerchantScopedLookup } from './batched-lookup';
import { ConditionalUpserts } from './conditional-upserts';
import { insertManyUnordered } from './insert-many-unordered';
import { limitedListRead } from './list-time-limit';
import type { MerchantCounts } from './merchant-counts';
import { ScopedRepository, scoped, type ScopedRecord } from './scoped-repository';

export interface TenantRecord extends ScopedRecord {
  created_at: Date;
  pending_events: StoredPendingEvent[];
}

/** The writes `relayAfter` hands its callback. */
export type HeldWrites<T extends TenantRecord> = Pick<
  TenantRepository<T>,
  'insert' | 'update' | 'updateIf' | 'applyIf'
>;

export interface Page<T> {
  items: T[];
  total: number;
}

export interface WriteResult<T> {
  record: T;
  pending: PendingEvent[];
}

const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

export interface TenantRepositoryOptions<T = unknown> {
  /** The kernel's outbox relay: each write's events are handed to it once the write is done. */
  relay?: EventRelay;
  /**
   * Per-merchant record counts, raised right after each batch of inserts and before its callers
   * hear of it. A crash between the two is repaired by the outbox sweep (docs/decisions.md,
   * "Counts and newest-first lists").
   */
  counts?: MerchantCounts;
  /**
   * Counting of each inserted batch that must stay exact across a crash (tracking's referral
   * counts): run before the batch's `insertMany` (it may add fields to the documents), it
   * answers what to run, in the same flush, with the documents the batch inserted. When it
   * fails, the batch fails and nothing is inserted; what the second step could not do is left
   * to its owner's sweep.
   */
  countBatch?: (docs: T[]) => Promise<((inserted: T[]) => Promise<void>) | null>;
  /** Told when a batch was inserted but its count could not be raised. */
  onCountFailed?: (error: unknown) => void;
}

export class TenantRepository<T extends TenantRecord> extends ScopedRepository<T> {
  /** Inserts that arrive together share one unordered `insertMany`. */
  private readonly inserts: Batcher<T>;
  /** Batched reads by a unique field, one per field asked for (see `findByUnique`). */
  private readonly uniqueReads = new Map<string, MerchantScopedLookup<T>>();
  /** Conditional updates that arrive together share one unordered `bulkWrite` (see `applyIf`). */
  private readonly conditionalUpdates = new ConditionalUpserts();

  private readonly relay: EventRelay | undefined;
  private readonly counts: MerchantCounts | undefined;

  constructor(model: Model<T>, opts: TenantRepositoryOptions<T> = {}) {
    super(model);
    const { counts, countBatch, onCountFailed = () => undefined } = opts;
    this.relay = opts.relay;
    this.counts = counts;
    // A batch is counted before its events are relayed, so a writer that died in between left
    // its events pending: the outbox sweep counts those records before relaying them.
    if (counts) repairLeftoversWith(model.collection, (docs) => counts.recount(docs));
    this.inserts = new Batcher<T>({
      flush: async (docs) => {
        const settle = countBatch ? await countBatch(docs) : null;
        const results = await insertManyUnordered(model, docs);
        const inserted = docs.filter((_, i) => !results[i]);
        await Promise.all([
          counts?.added(inserted).catch(onCountFailed),
          settle?.(inserted).catch(onCountFailed),
        ]);
        return results;
      },
    });
  }

  /**
   * The record whose `field` (unique per merchant, and indexed so with `merchant_id`) is `value`.
   * Concurrent calls share one `find` per merchant with `$in`: a hot consumer's look-ups by key
   * become one command per batch.
   */
  async findByUnique(merchantId: string, field: string, value: string): Promise<T | null> {
    let reads = this.uniqueReads.get(field);
    if (!reads) {
      reads = new MerchantScopedLookup<T>(this.model, field);
      this.uniqueReads.set(field, reads);
    }
    return reads.get(merchantId, value);
  }

  /**
   * Counts a stored record in its merchant's count and newest ids unless it is counted already
   * (`MerchantCounts.countIfMissed`); nothing without counts. For writes whose events travel in
   * their message rather than in the record, which the outbox sweep's repair never sees.
   */
  async countIfMissed(record: T): Promise<void> {
    await this.counts?.countIfMissed(record);
  }

  async findMany(merchantId: string, filter: FilterQuery<T>, limit = 1000): Promise<T[]> {
    return this.model
      .find(scoped(merchantId, filter))
      .sort(NEWEST_FIRST)
      .limit(limit)
      .lean<T[]>()
      .exec();
  }

  async page(
    merchantId: string,
    filter: FilterQuery<T>,
    skip: number,
    limit: number,
  ): Promise<Page<T>> {
    const query = scoped(merchantId, filter);
    // Both may scan on the local server: bounded by the time the caller waits (list-time-limit.ts).
    const [items, total] = await Promise.all([
      limitedListRead(this.model.find(query), this.model)
        .sort(NEWEST_FIRST)
        .skip(skip)
        .limit(limit)
        .lean<T[]>()
        .exec(),
      limitedListRead(this.model.countDocuments(query), this.model).exec(),
    ]);
    return { items, total };
  }

  async insert(
    record: Omit<T, 'pending_events'>,
    events: EventEnvelope[] = [],
    context: EventContext = {},
  ): Promise<WriteResult<T>> {
    const stored = events.map((event) => toStoredPendingEvent(event, context));
    const full = { ...record, [PENDING_EVENTS_FIELD]: stored } as unknown as T;
    await this.inserts.push(full);
    return { record: full, pending: this.relayed(record._id, stored) };
  }

  /** Applies `$set` (and any extra operators) and queues events in the same write. */
  async update(
    merchantId: string,
    id: string,
    update: UpdateQuery<T>,
    events: EventEnvelope[] = [],
    context: EventContext = {},
  ): Promise<WriteResult<T> | null> {
    return this.updateIf(merchantId, id, {}, update, events, context);
  }

  /**
   * Like `update`, but only while the record still matches `condition` (e.g. a state), so two
   * writers racing on one record cannot both apply a state change. Null when nothing matched.
   */
  async updateIf(
    merchantId: string,
    id: string,
    condition: FilterQuery<T>,
    update: UpdateQuery<T>,
    events: EventEnvelope[] = [],
    context: EventContext = {},
  ): Promise<WriteResult<T> | null> {
    const stored = events.map((event) => toStoredPendingEvent(event, context));
    const record = await this.model
      .findOneAndUpdate(
        scoped(merchantId, { ...condition, _id: id }),
        withPendingEvents(update, stored),
        {
          new: true,
        },
      )
      .lean<T>()
      .exec();
    return record ? { record, pending: this.relayed(id, stored) } : null;
  }

  /**
   * `updateIf` for collections whose records are never deleted, when the caller needs only
   * whether the update applied (and its events for relay), not the record. Concurrent calls
   * share one unordered `bulkWrite`: a hot consumer's conditional writes become one command per
   * batch instead of one `findAndModify` each. Null when the condition did not hold.
   *
   * The write is an upsert (see conditional-upserts.ts): a record must never be deleted (its
   * update would insert a fragment), and an update that sets a unique field must use `updateIf`
   * (its own duplicate key would read as "did not match").
   */
  async applyIf(
    merchantId: string,
    id: string,
    condition: FilterQuery<T>,
    update: UpdateQuery<T>,
    events: EventEnvelope[] = [],
    context: EventContext = {},
  ): Promise<PendingEvent[] | null> {
    const stored = events.map((event) => toStoredPendingEvent(event, context));
    const filter = scoped(merchantId, { ...condition, _id: id });
    const applied = await this.conditionalUpdates.upsert(
      this.model,
      filter,
      withPendingEvents(update, stored) as Record<string, unknown>,
    );
    return applied ? this.relayed(id, stored) : null;
  }

  /**
   * Raises numeric fields of records of one merchant to at least the given values (`$max`);
   * concurrent raises share one unordered `bulkWrite` (`updateOneBatched`). Monotonic, so a
   * repeat or a late, older figure changes nothing. A record that does not exist is not created.
   */
  async raise(
    merchantId: string,
    rows: { id: string; values: Record<string, number> }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await Promise.all(
      rows.map((row) =>
        this.updateOneBatched(
          merchantId,
          { _id: row.id } as FilterQuery<T>,
          {
            $max: row.values,
          } as UpdateQuery<T>,
        ),
      ),
    );
  }

  /**
   * Writes whose events must wait for a step of the caller's: `writes` makes them through `held`
   * (this repository's writes: events stored with each write, as always, but not yet relayed),
   * `step` runs with what `writes` returned, and then the events of every held write are
   * relayed, in write order. A step (or write) that throws leaves them to the outbox sweep, as a
   * crash would. Tracking settles a referral's count reservation this way before its events go
   * out; payout writes the payout that its logged events describe.
   */
  async relayAfter<R>(
    writes: (held: HeldWrites<T>) => Promise<R>,
    step: (result: R) => Promise<unknown>,
  ): Promise<R> {
    const collected: PendingEvent[] = [];
    // The same repository (batches, caches) with a relay that only collects.
    const held: TenantRepository<T> = Object.create(this, {
      relay: { value: { relay: (items: PendingEvent[]) => collected.push(...items) } },
    });
    const result = await writes(held);
    await step(result);
    if (collected.length > 0) this.relay?.relay(collected);
    return result;
  }

  relayItems(id: string, stored: StoredPendingEvent[]): PendingEvent[] {
    return stored.map((item) => relayItem(this.model.collection, id, item));
  }

  /** A write's events, handed to the relay when the repository has one (and returned). */
  private relayed(id: string, stored: StoredPendingEvent[]): PendingEvent[] {
    const pending = this.relayItems(id, stored);
    if (pending.length > 0) this.relay?.relay(pending);
    return pending;
  }
}

/** The update, plus the events to queue in the record's outbox (merged with its `$push`). */
function withPendingEvents<T>(
  update: UpdateQuery<T>,
  stored: StoredPendingEvent[],
): UpdateQuery<T> {
  if (stored.length === 0) return update;
  const push = (update as { $push?: object }).$push;
  return { ...update, $push: { ...push, [PENDING_EVENTS_FIELD]: { $each: stored } } };
}
