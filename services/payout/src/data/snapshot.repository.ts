/** Latest copies of other services' records, kept from their events (newest wins). */
import type { FilterQuery, Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';
import type { SnapshotStore } from '../domain/ports';
import type { SnapshotRecord } from '../domain/records';
import { upsertIfNewer } from './upsert-if-newer';

/** Seeded ids remembered per process; past this many the memory starts again (a re-seed is harmless). */
const SEEDED_MEMORY = 50_000;

export class SnapshotRepository<R extends SnapshotRecord<unknown>> implements SnapshotStore<R> {
  /**
   * Copies this process already knows to exist: every commission event embeds its affiliate and
   * campaign, and trying the insert each time cost a failed write per event.
   */
  private seeded = new Set<string>();

  constructor(private readonly model: Model<R>) {}

  async save(record: R): Promise<boolean> {
    return upsertIfNewer(this.model, { ...record } as R & Record<string, unknown>);
  }

  /**
   * Keeps a copy only when there is none: for copies embedded in another service's events, so
   * that the owner's own events (one consumer, in order) stay the only writer of updates.
   */
  async seed(record: R): Promise<void> {
    const key = seededKey(record.merchant_id, record._id);
    if (this.seeded.has(key)) return;
    try {
      await this.model.create(record);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    if (this.seeded.size >= SEEDED_MEMORY) this.seeded = new Set();
    this.seeded.add(key);
  }

  hasSeeded(merchantId: string, id: string): boolean {
    return this.seeded.has(seededKey(merchantId, id));
  }

  async findById(merchantId: string, id: string): Promise<R | null> {
    return this.model
      .findOne({ _id: id, merchant_id: merchantId } as FilterQuery<R>)
      .lean<R>()
      .exec();
  }

  async findByIds(merchantId: string, ids: string[]): Promise<R[]> {
    if (ids.length === 0) return [];
    return this.model
      .find({ _id: { $in: [...new Set(ids)] }, merchant_id: merchantId } as FilterQuery<R>)
      .lean<R[]>()
      .exec();
  }
}

function seededKey(merchantId: string, id: string): string {
  return `${merchantId}:${id}`;
}
