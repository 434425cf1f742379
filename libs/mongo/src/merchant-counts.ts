/**
 * How many records each merchant has in one collection, kept by `$inc` as records are inserted,
 * so a list's `total_count` is one read by `_id` however long the history. Counting the records
 * instead scans every one of them on the local server (mongo-java-server uses no index for a
 * count) and walks an index range that grows with the history on MongoDB.
 */
import { Schema, type Connection, type Model } from 'mongoose';

interface CountDoc {
  _id: string;
  count: number;
}

export class MerchantCounts {
  readonly model: Model<CountDoc>;

  /** `collection`: e.g. `referral_counts`, one document per merchant. */
  constructor(connection: Connection, collection: string) {
    const name = `Count_${collection}`;
    this.model =
      (connection.models[name] as Model<CountDoc> | undefined) ??
      connection.model<CountDoc>(
        name,
        new Schema<CountDoc>(
          { _id: { type: String, required: true }, count: { type: Number, required: true } },
          { versionKey: false },
        ),
        collection,
      );
  }

  /** Adds one per record of `inserted` to its merchant's count (one write per batch). */
  async added(inserted: { merchant_id: string }[]): Promise<void> {
    const byMerchant = new Map<string, number>();
    for (const doc of inserted)
      byMerchant.set(doc.merchant_id, (byMerchant.get(doc.merchant_id) ?? 0) + 1);
    if (byMerchant.size === 0) return;
    await this.model.bulkWrite(
      [...byMerchant].map(([merchantId, n]) => ({
        updateOne: { filter: { _id: merchantId }, update: { $inc: { count: n } }, upsert: true },
      })),
      { ordered: false },
    );
  }

  async get(merchantId: string): Promise<number> {
    const doc = await this.model.findById(merchantId).lean<CountDoc>().exec();
    return doc?.count ?? 0;
  }
}
