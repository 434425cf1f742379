/**
 * Merchant-scoped access to a collection, written once: every read and write of one merchant's
 * records adds `merchant_id` to its filter here, so a repository never writes `{merchant_id, ...}`
 * by hand and one merchant can never reach another's records.
 *
 * This is the base of every repository. Records with an outbox (`created_at`, `pending_events`)
 * use `TenantRepository`, which adds the outbox, batched inserts and newest-first lists; read
 * models, keyed per-event records and logs use this class directly. A few jobs read across
 * merchants (a scheduler's "which merchants have work", a sweep of stale leases): they use
 * `model` and say so.
 *
 * Records keyed by their merchant (`<merchant>:<referral>`) are scoped the same way: their `_id`
 * already names the merchant, and the added `merchant_id` costs nothing (a filter that pins
 * `_id` is an `_id` look-up on both servers, docs/local-database.md).
 */
import type { FilterQuery, Model, PipelineStage, ProjectionType, UpdateQuery } from 'mongoose';
import { BulkUpdates } from './bulk-updates';
import { isDuplicateKeyError } from './connection';
import { upsertIfNewer, type Versioned } from './upsert-if-newer';

export interface ScopedRecord {
  _id: string;
  merchant_id: string;
}

export interface FindOptions<T> {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
  projection?: ProjectionType<T>;
}

export interface UpdateCounts {
  matched: number;
  modified: number;
}

export class ScopedRepository<T extends ScopedRecord> {
  /** Updates of `updateOneBatched` that arrive together share one unordered `bulkWrite`. */
  private readonly batched = new BulkUpdates();

  constructor(readonly model: Model<T>) {}

  async findById(merchantId: string, id: string): Promise<T | null> {
    return this.model
      .findOne(scoped<T>(merchantId, { _id: id }))
      .lean<T>()
      .exec();
  }

  /** The records with these ids (a repeated id is read once); in no particular order. */
  async findByIds(merchantId: string, ids: string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    return this.find(merchantId, { _id: { $in: [...new Set(ids)] } } as FilterQuery<T>);
  }

  async findOne<R = T>(
    merchantId: string,
    filter: FilterQuery<T>,
    options: Omit<FindOptions<T>, 'skip' | 'limit'> = {},
  ): Promise<R | null> {
    let query = this.model.findOne(scoped(merchantId, filter), options.projection);
    if (options.sort) query = query.sort(options.sort);
    return query.lean<R>().exec();
  }

  async find<R = T>(
    merchantId: string,
    filter: FilterQuery<T>,
    options: FindOptions<T> = {},
  ): Promise<R[]> {
    let query = this.model.find(scoped(merchantId, filter), options.projection);
    if (options.sort) query = query.sort(options.sort);
    if (options.skip) query = query.skip(options.skip);
    if (options.limit !== undefined) query = query.limit(options.limit);
    return query.lean<R[]>().exec();
  }

  /** An aggregation over the merchant's records matching `match` (its first stage). */
  async aggregate<R>(
    merchantId: string,
    match: FilterQuery<T>,
    stages: PipelineStage[],
  ): Promise<R[]> {
    return this.model.aggregate<R>([{ $match: scoped(merchantId, match) }, ...stages]).exec();
  }

  async exists(merchantId: string, filter: FilterQuery<T>): Promise<boolean> {
    return (await this.model.exists(scoped(merchantId, filter)).exec()) !== null;
  }

  /**
   * Inserts the record (through mongoose: cast, schema defaults) unless one with its `_id` (or
   * another unique key) exists; false then. For insert-once records whose key is the guard.
   */
  async insertIfAbsent(record: T): Promise<boolean> {
    try {
      await this.model.create(record);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  async count(merchantId: string, filter: FilterQuery<T>): Promise<number> {
    return this.model.countDocuments(scoped(merchantId, filter)).exec();
  }

  /**
   * One record matching `filter`, updated in the next shared unordered `bulkWrite` of this
   * repository (bulk-updates.ts: concurrent `$inc`s of one record are summed). For hot, blind
   * writes whose caller needs no counts back; resolves once the batch holding it is written.
   */
  async updateOneBatched(
    merchantId: string,
    filter: FilterQuery<T>,
    update: UpdateQuery<T>,
  ): Promise<void> {
    await this.batched.updateOne(
      this.model,
      scoped(merchantId, filter) as Record<string, unknown>,
      update as Record<string, unknown>,
    );
  }

  /** One record matching `filter`; what matched and what changed. */
  async updateOne(
    merchantId: string,
    filter: FilterQuery<T>,
    update: UpdateQuery<T>,
  ): Promise<UpdateCounts> {
    const result = await this.model.updateOne(scoped(merchantId, filter), update).exec();
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  /** Updates one record matching `filter` and returns it as it was `before` or is `after`. */
  async findOneAndUpdate(
    merchantId: string,
    filter: FilterQuery<T>,
    update: UpdateQuery<T>,
    returns: 'before' | 'after',
  ): Promise<T | null> {
    return this.model
      .findOneAndUpdate(scoped(merchantId, filter), update, { new: returns === 'after' })
      .lean<T>()
      .exec();
  }

  /**
   * Updates the record matching `filter`, or inserts it (with the filter's equality fields,
   * `merchant_id` among them, so the update must not set it again). False when the insert
   * collided on a unique key: the record exists but did not match, e.g. it holds a newer
   * version than the filter allows, or another writer inserted it at the same moment.
   */
  async upsert(
    merchantId: string,
    filter: FilterQuery<T>,
    update: UpdateQuery<T>,
  ): Promise<boolean> {
    try {
      await this.model.updateOne(scoped(merchantId, filter), update, { upsert: true }).exec();
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Writes a read-model copy from an event unless the stored one is newer (upsert-if-newer.ts). */
  async upsertIfNewer(
    record: Partial<T> & Versioned,
    onInsert: Record<string, unknown> = {},
  ): Promise<boolean> {
    return upsertIfNewer(this.model, { ...record }, onInsert);
  }

  /** How many records were updated. */
  async updateMany(
    merchantId: string,
    filter: FilterQuery<T>,
    update: UpdateQuery<T>,
  ): Promise<number> {
    const result = await this.model.updateMany(scoped(merchantId, filter), update).exec();
    return result.modifiedCount;
  }

  async deleteById(merchantId: string, id: string): Promise<void> {
    await this.model.deleteOne(scoped<T>(merchantId, { _id: id })).exec();
  }

  /** How many records were deleted. */
  async deleteOne(merchantId: string, filter: FilterQuery<T>): Promise<number> {
    return (await this.model.deleteOne(scoped(merchantId, filter)).exec()).deletedCount;
  }

  /** How many records were deleted. */
  async deleteMany(merchantId: string, filter: FilterQuery<T>): Promise<number> {
    return (await this.model.deleteMany(scoped(merchantId, filter)).exec()).deletedCount;
  }
}

/** The filter, limited to one merchant's records (a `merchant_id` in it is overridden). */
export function scoped<T>(merchantId: string, filter: FilterQuery<T>): FilterQuery<T> {
  return { ...filter, merchant_id: merchantId } as FilterQuery<T>;
}
