/**
 * Data access shared by every merchant-scoped collection: every read and write is filtered by
 * `merchant_id`, so one merchant can never reach another's records. Writes may carry domain
 * events, stored in the same document write (see pending-events.ts) and handed back for relay.
 */
import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import { Batcher, type EventContext, type PendingEvent } from '@aff/messaging';
import {
  PENDING_EVENTS_FIELD,
  relayItem,
  toStoredPendingEvent,
  type StoredPendingEvent,
} from './pending-events';
import { BatchedLookup } from './batched-lookup';

export interface TenantRecord {
  _id: string;
  merchant_id: string;
  created_at: Date;
  pending_events: StoredPendingEvent[];
}

export interface Page<T> {
  items: T[];
  total: number;
}

export interface WriteResult<T> {
  record: T;
  pending: PendingEvent[];
}

const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

export class TenantRepository<T extends TenantRecord> {
  /** Inserts that arrive together share one unordered `insertMany`. */
  private readonly inserts: Batcher<T>;
  /** Batched reads by a unique field, one per field asked for (see `findByUnique`). */
  private readonly uniqueReads = new Map<string, BatchedLookup<T>>();

  constructor(readonly model: Model<T>) {
    this.inserts = new Batcher<T>({ flush: (docs) => insertManyUnordered(model, docs) });
  }

  async findById(merchantId: string, id: string): Promise<T | null> {
    return this.model
      .findOne({ _id: id, merchant_id: merchantId } as FilterQuery<T>)
      .lean<T>()
      .exec();
  }

  async findOne(merchantId: string, filter: FilterQuery<T>): Promise<T | null> {
    return this.model
      .findOne({ ...filter, merchant_id: merchantId })
      .lean<T>()
      .exec();
  }

  /**
   * The record whose `field` (unique per merchant, and indexed so with `merchant_id`) is `value`.
   * Concurrent calls share one `find` per merchant with `$in`: a hot consumer's look-ups by key
   * become one command per batch.
   */
  async findByUnique(merchantId: string, field: string, value: string): Promise<T | null> {
    let reads = this.uniqueReads.get(field);
    if (!reads) {
      reads = new BatchedLookup<T>((keys) => this.loadByUnique(field, keys));
      this.uniqueReads.set(field, reads);
    }
    return reads.get(JSON.stringify([merchantId, value]));
  }

  private async loadByUnique(field: string, keys: string[]): Promise<Map<string, T>> {
    const valuesByMerchant = new Map<string, string[]>();
    for (const key of keys) {
      const [merchantId, value] = JSON.parse(key) as [string, string];
      const values = valuesByMerchant.get(merchantId);
      if (values) values.push(value);
      else valuesByMerchant.set(merchantId, [value]);
    }
    const found = new Map<string, T>();
    await Promise.all(
      [...valuesByMerchant].map(async ([merchantId, values]) => {
        const records = await this.model
          .find({ merchant_id: merchantId, [field]: { $in: values } } as FilterQuery<T>)
          .lean<T[]>()
          .exec();
        for (const record of records) {
          const value = (record as Record<string, unknown>)[field];
          found.set(JSON.stringify([merchantId, value]), record);
        }
      }),
    );
    return found;
  }

  async findMany(merchantId: string, filter: FilterQuery<T>, limit = 1000): Promise<T[]> {
    return this.model
      .find({ ...filter, merchant_id: merchantId })
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
    const scoped = { ...filter, merchant_id: merchantId } as FilterQuery<T>;
    const [items, total] = await Promise.all([
      this.model.find(scoped).sort(NEWEST_FIRST).skip(skip).limit(limit).lean<T[]>().exec(),
      this.model.countDocuments(scoped).exec(),
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
    return { record: full, pending: this.relayItems(record._id, stored) };
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
    const withEvents = (
      stored.length > 0
        ? { ...update, $push: { [PENDING_EVENTS_FIELD]: { $each: stored } } }
        : update
    ) as UpdateQuery<T>;
    const record = await this.model
      .findOneAndUpdate(
        { ...condition, _id: id, merchant_id: merchantId } as FilterQuery<T>,
        withEvents,
        {
          new: true,
        },
      )
      .lean<T>()
      .exec();
    return record ? { record, pending: this.relayItems(id, stored) } : null;
  }

  async deleteById(merchantId: string, id: string): Promise<void> {
    await this.model.deleteOne({ _id: id, merchant_id: merchantId } as FilterQuery<T>).exec();
  }

  relayItems(id: string, stored: StoredPendingEvent[]): PendingEvent[] {
    return stored.map((item) => relayItem(this.model.collection, id, item));
  }
}

/**
 * One unordered `insertMany` for a batch; a failed document (say, a duplicate key) fails only
 * its own caller, with the driver's error code, so `isDuplicateKeyError` still tells.
 */
export async function insertManyUnordered<T>(
  model: Model<T>,
  docs: T[],
): Promise<(undefined | Error)[]> {
  if (docs.length === 1) {
    await model.collection.insertOne(docs[0] as never);
    return [undefined];
  }
  try {
    await model.collection.insertMany(docs as never[], { ordered: false });
    return docs.map(() => undefined);
  } catch (error) {
    return failuresByIndex(error, docs.length);
  }
}

/**
 * The outcome of each operation of a failed unordered bulk write: an `Error` carrying the
 * driver's code where the server reported one for that index, `undefined` where the operation
 * went through. Rethrows anything that is not a per-operation failure (a lost connection).
 */
export function failuresByIndex(error: unknown, count: number): (undefined | Error)[] {
  const writeErrors = (
    error as { writeErrors?: { index: number; code: number; errmsg?: string }[] }
  ).writeErrors;
  if (!Array.isArray(writeErrors)) throw error;
  const results: (undefined | Error)[] = Array.from({ length: count }, () => undefined);
  for (const failure of writeErrors) {
    results[failure.index] = Object.assign(new Error(failure.errmsg ?? 'write failed'), {
      code: failure.code,
    });
  }
  return results;
}
