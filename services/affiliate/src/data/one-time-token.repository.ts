/** Magic-link and e-mail confirmation tokens over MongoDB: the `OneTimeTokenStore` port. */
import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import type { OneTimeTokenStore } from '../domain/ports';

type TokenRecord = { _id: string; token_hash: string; expires_at: Date; used_at: Date | null };

export class OneTimeTokenRepository<T extends TokenRecord> implements OneTimeTokenStore<T> {
  constructor(private readonly model: Model<T>) {}

  async replace(record: T): Promise<void> {
    await this.model.replaceOne({ _id: record._id }, record, { upsert: true });
  }

  claim(tokenHash: string, now: Date): Promise<T | null> {
    return this.model
      .findOneAndUpdate(
        { token_hash: tokenHash, used_at: null, expires_at: { $gt: now } } as FilterQuery<T>,
        { $set: { used_at: now } } as UpdateQuery<T>,
        { new: true },
      )
      .lean<T>()
      .exec();
  }
}
