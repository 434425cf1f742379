/** Latest copies of other services' records, kept from their events (newest wins). */
import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';
import type { SnapshotRecord } from './snapshot.schema';
import { upsertIfNewer } from './upsert-if-newer';

export class SnapshotRepository<R extends SnapshotRecord<unknown>> {
  constructor(private readonly model: Model<R>) {}

  async save(record: R): Promise<boolean> {
    return upsertIfNewer(this.model, { ...record } as R & Record<string, unknown>);
  }

  /**
   * Keeps a copy only when there is none: for copies embedded in another service's events, so
   * that the owner's own events (one consumer, in order) stay the only writer of updates.
   */
  async seed(record: R): Promise<void> {
    try {
      await this.model.create(record);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  async findById(merchantId: string, id: string): Promise<R | null> {
    return this.model
      .findOne({ _id: id, merchant_id: merchantId } as never)
      .lean<R>()
      .exec();
  }

  async findByIds(merchantId: string, ids: string[]): Promise<R[]> {
    if (ids.length === 0) return [];
    return this.model
      .find({ _id: { $in: [...new Set(ids)] }, merchant_id: merchantId } as never)
      .lean<R[]>()
      .exec();
  }
}
