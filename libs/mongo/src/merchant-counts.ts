/**
 * How many records each merchant has in one collection, and (optionally) the ids of its newest
 * few, in one document per merchant kept by the same update right after each batch of inserts:
 * `$inc` of the count and `$push` of the batch's ids with `$each`, `$sort` (newest first, as the
 * list orders: `created_at`, then `_id`, descending) and `$slice` (the newest `keepNewest`). So a
 * list's `total_count` and its first pages are one read by `_id` however long the history, on
 * both servers. Counting the records instead scans every one of them on the local server
 * (mongo-java-server uses no index for a count, and sorts in memory) and walks an index range
 * that grows with the history on MongoDB.
 */
import { Schema, type Connection, type Model } from 'mongoose';

/** A record's place in the newest-first order. */
export interface NewestEntry {
  at: Date;
  id: string;
}

export interface CountDoc {
  _id: string;
  count: number;
  newest?: NewestEntry[];
}

/** What `read` returns: the merchant's count and its newest ids (newest first). */
export interface CountedNewest {
  count: number;
  ids: string[];
}

/** The model of one count collection (e.g. `referral_counts`, one document per merchant). */
export function merchantCountsModel(connection: Connection, collection: string): Model<CountDoc> {
  const name = `Count_${collection}`;
  return (
    (connection.models[name] as Model<CountDoc> | undefined) ??
    connection.model<CountDoc>(
      name,
      new Schema<CountDoc>(
        {
          _id: { type: String, required: true },
          count: { type: Number, required: true },
          newest: { type: [{ _id: false, at: Date, id: String }], default: undefined },
        },
        { versionKey: false },
      ),
      collection,
    )
  );
}

export class MerchantCounts {
  /**
   * `model`: from `merchantCountsModel`, declared with the service's models. `keepNewest`: how
   * many of the newest ids each document keeps (0: none).
   */
  constructor(
    readonly model: Model<CountDoc>,
    readonly keepNewest = 0,
  ) {}

  /**
   * Adds one per record of `inserted` to its merchant's count (one write per batch). With kept
   * ids, the batch's update applies only while none of its ids is kept yet: a repair (`recount`)
   * may have counted one of them first (a redelivered write finding its record already stored,
   * while this writer was still between its insert and this count). Then its upsert collides
   * with the existing document, and the batch is counted one record at a time, each only if
   * absent, so no record is counted twice.
   */
  async added(inserted: { _id: string; merchant_id: string; created_at: Date }[]): Promise<void> {
    const byMerchant = new Map<string, NewestEntry[]>();
    for (const doc of inserted) {
      const entries = byMerchant.get(doc.merchant_id) ?? [];
      entries.push({ at: doc.created_at, id: doc._id });
      byMerchant.set(doc.merchant_id, entries);
    }
    if (byMerchant.size === 0) return;
    const batches = [...byMerchant];
    const collided = await this.model.collection
      .bulkWrite(
        batches.map(([merchantId, entries]) => ({
          updateOne: {
            filter:
              this.keepNewest > 0
                ? { _id: merchantId, 'newest.id': { $nin: entries.map((e) => e.id) } }
                : { _id: merchantId },
            update: {
              $inc: { count: entries.length },
              ...(this.keepNewest > 0
                ? {
                    $push: {
                      newest: {
                        $each: entries,
                        $sort: { at: -1, id: -1 },
                        $slice: this.keepNewest,
                      },
                    },
                  }
                : {}),
            },
            upsert: true,
          },
        })) as never,
        { ordered: false },
      )
      .then(
        () => [],
        (error: unknown) => collidedBatches(error),
      );
    for (const index of collided) {
      const [merchantId, entries] = batches[index]!;
      for (const entry of entries) await this.countOne(merchantId, entry);
    }
  }

  /**
   * Counts the records a writer inserted but died before counting (`added` runs right after
   * the insert, so a crash in between leaves the merchant's count and newest ids without that
   * batch, and the list without its records). The outbox sweep calls it for each document it
   * finds with events still pending, before relaying them: a writer that died there never
   * relayed them (it relays only after counting). A record is counted once: one whose id is
   * among the kept ids is skipped, and the update is conditional on the id being absent. A
   * record older than every kept id, when all `keepNewest` are kept, cannot be told apart from
   * one counted and pushed out by newer ones, and is left as it is (docs/decisions.md, "Counts
   * and newest-first lists"). Without kept ids (`keepNewest` 0) nothing can be told: no-op.
   */
  async recount(docs: { _id: string; merchant_id: string; created_at: Date }[]): Promise<void> {
    if (this.keepNewest <= 0 || docs.length === 0) return;
    const byMerchant = new Map<string, typeof docs>();
    for (const doc of docs)
      byMerchant.set(doc.merchant_id, [...(byMerchant.get(doc.merchant_id) ?? []), doc]);
    for (const [merchantId, mine] of byMerchant) {
      const current = await this.model.findById(merchantId, { newest: 1 }).lean<CountDoc>().exec();
      const kept = current?.newest ?? [];
      const keptIds = new Set(kept.map((e) => e.id));
      const full = kept.length >= this.keepNewest;
      const oldestKept = kept.length ? new Date(kept[kept.length - 1]!.at).getTime() : 0;
      for (const doc of mine) {
        if (keptIds.has(doc._id)) continue;
        if (full && new Date(doc.created_at).getTime() <= oldestKept) continue;
        await this.countOne(merchantId, { at: doc.created_at, id: doc._id });
      }
    }
  }

  /**
   * `recount` of one stored record, after a read that finds it among the kept ids (the usual
   * answer, and far smaller than the kept ids `recount` reads): for a write that finds its
   * record already stored and cannot tell whether the run that stored it lived to count it.
   */
  async countIfMissed(doc: { _id: string; merchant_id: string; created_at: Date }): Promise<void> {
    if (this.keepNewest <= 0) return;
    const kept = await this.model
      .findOne({ _id: doc.merchant_id, 'newest.id': doc._id }, { _id: 1 })
      .lean()
      .exec();
    if (!kept) await this.recount([doc]);
  }

  private async countOne(merchantId: string, entry: NewestEntry): Promise<void> {
    try {
      await this.model.collection.updateOne(
        { _id: merchantId, 'newest.id': { $ne: entry.id } } as never,
        {
          $inc: { count: 1 },
          $push: { newest: { $each: [entry], $sort: { at: -1, id: -1 }, $slice: this.keepNewest } },
        } as never,
        { upsert: true },
      );
    } catch (error) {
      // The document exists and already holds the id (counted meanwhile): the upsert's insert
      // collides with its `_id`, which is the answer "already counted".
      if ((error as { code?: number }).code !== 11000) throw error;
    }
  }

  async get(merchantId: string): Promise<number> {
    const doc = await this.model.findById(merchantId, { count: 1 }).lean<CountDoc>().exec();
    return doc?.count ?? 0;
  }

  /**
   * The count, and the first `upTo` of the newest ids kept (a `$slice` read: the first page
   * reads 25 entries, not the whole array). mongo-java-server 1.47 fails a `[skip, limit]`
   * slice whose skip is past the array's end, and drops the connection on a `$slice` of a
   * missing field (a count document written before it kept ids): so the slice is read from
   * the start, and only from a document that has the field.
   */
  async read(merchantId: string, upTo: number): Promise<CountedNewest> {
    if (upTo > 0) {
      const doc = await this.model
        .findOne(
          { _id: merchantId, newest: { $exists: true } },
          { count: 1, newest: { $slice: upTo } },
        )
        .lean<CountDoc>()
        .exec();
      if (doc) return { count: doc.count, ids: (doc.newest ?? []).map((e) => e.id) };
    }
    return { count: await this.get(merchantId), ids: [] };
  }
}

/**
 * The indexes of a `bulkWrite`'s upserts that collided with an existing document (E11000):
 * batches one of whose ids was counted already. Any other failure is rethrown.
 */
function collidedBatches(error: unknown): number[] {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0) throw error;
  const indexes: number[] = [];
  for (const item of list as { code?: number; index?: number }[]) {
    if (item.code !== 11000 || typeof item.index !== 'number') throw error;
    indexes.push(item.index);
  }
  return indexes;
}
