/** Latest copies of other services' records, kept from their events (newest wins). */
import type { Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { SnapshotStore } from '../domain/ports';
import type { SnapshotRecord } from '../domain/records';

/** Seeded ids remembered per process; past this many the memory starts again (a re-seed is harmless). */
const SEEDED_MEMORY = 50_000;

export class SnapshotRepository<R extends SnapshotRecord<unknown>> implements SnapshotStore<R> {
  /**
   * Copies this process already knows to exist: every commission event embeds its affiliate and
   * campaign, and trying the insert each time cost a failed write per event.
   */
  private seeded = new Set<string>();
  /**
   * Seeds under way, by key: the handlers of a burst (a backlog of commissions of one
   * affiliate) wait for the one insert instead of each trying its own, which failed as a
   * duplicate but still cost a written document each.
   */
  private readonly seeding = new Map<string, Promise<void>>();

  private readonly copies: ScopedRepository<R>;

  constructor(model: Model<R>) {
    this.copies = new ScopedRepository(model);
  }

  async save(record: R): Promise<boolean> {
    return this.copies.upsertIfNewer(record);
  }

  /**
   * Keeps a copy only when there is none: for copies embedded in another service's events, so
   * that the owner's own events (one consumer, in order) stay the only writer of updates.
   */
  async seed(record: R): Promise<void> {
    const key = seededKey(record.merchant_id, record._id);
    if (this.seeded.has(key)) return;
    const underWay = this.seeding.get(key);
    if (underWay) return underWay;
    const insert = this.copies
      .insertIfAbsent(record)
      .then(() => {
        if (this.seeded.size >= SEEDED_MEMORY) this.seeded = new Set();
        this.seeded.add(key);
      })
      .finally(() => this.seeding.delete(key));
    this.seeding.set(key, insert);
    return insert;
  }

  hasSeeded(merchantId: string, id: string): boolean {
    return this.seeded.has(seededKey(merchantId, id));
  }

  async findById(merchantId: string, id: string): Promise<R | null> {
    return this.copies.findById(merchantId, id);
  }

  async findByIds(merchantId: string, ids: string[]): Promise<R[]> {
    return this.copies.findByIds(merchantId, ids);
  }
}

function seededKey(merchantId: string, id: string): string {
  return `${merchantId}:${id}`;
}
