/** Idempotency records in MongoDB: the unique `_id` makes the claim atomic across replicas. */
import type { Model } from 'mongoose';
import type { IdempotencyKeyRecord } from './idempotency-key.schema';
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store';

const DUPLICATE_KEY = 11000;

export class MongoIdempotencyStore implements IdempotencyStore {
  constructor(private readonly keys: Model<IdempotencyKeyRecord>) {}

  async claim(key: string, record: IdempotencyRecord, ttlMs: number): Promise<boolean> {
    // An expired record that the TTL sweep has not removed yet must not block the key.
    await this.keys.deleteOne({ _id: key, expires_at: { $lte: new Date() } });
    try {
      await this.keys.create({ _id: key, ...this.fields(record, ttlMs) });
      return true;
    } catch (error) {
      if ((error as { code?: number }).code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    const doc = await this.keys.findOne({ _id: key, expires_at: { $gt: new Date() } }).lean();
    if (!doc) return null;
    return {
      fingerprint: doc.fingerprint,
      request: doc.request,
      ...(doc.answer ? { answer: doc.answer } : {}),
    };
  }

  async complete(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    await this.keys.updateOne({ _id: key }, { $set: this.fields(record, ttlMs) }, { upsert: true });
  }

  async release(key: string): Promise<void> {
    await this.keys.deleteOne({ _id: key });
  }

  private fields(record: IdempotencyRecord, ttlMs: number) {
    return {
      fingerprint: record.fingerprint,
      request: record.request,
      answer: record.answer ?? null,
      expires_at: new Date(Date.now() + ttlMs),
    };
  }
}
