/**
 * The export holds on payouts (see `PayoutRecord.export_id`): each taken and released by one
 * guarded conditional update on the payout document, which MongoDB applies atomically per
 * document, so of two exports racing for a payout exactly one matches.
 */
import type { Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { PayoutHolds } from '../domain/exports/export-ports';
import { PAY_HOLD, type PayoutHold, type PayoutRecord } from '../domain/records';
import type { PayoutDoc } from './payout.schema';

const VISIBLE = { commission_count: { $gt: 0 } };

export class PayoutHoldRepository implements PayoutHolds {
  private readonly payouts: ScopedRepository<PayoutDoc>;

  constructor(model: Model<PayoutDoc>) {
    this.payouts = new ScopedRepository(model);
  }

  /** Visible `due` payouts of a currency that no export holds, oldest first. */
  async dueUnheld(merchantId: string, currency: string, limit: number): Promise<PayoutRecord[]> {
    return this.payouts.find(
      merchantId,
      { currency, state: 'due', export_id: null, ...VISIBLE },
      { sort: { created_at: 1, _id: 1 }, limit },
    );
  }

  async findVisibleByIds(merchantId: string, ids: string[]): Promise<PayoutRecord[]> {
    if (ids.length === 0) return [];
    return this.payouts.find(merchantId, { _id: { $in: ids }, ...VISIBLE });
  }

  /** Takes a due, unheld payout for the export, `processing` in the same write; false if lost. */
  async take(
    merchantId: string,
    payoutId: string,
    currency: string,
    exportId: string,
  ): Promise<boolean> {
    const result = await this.payouts.updateOne(
      merchantId,
      { _id: payoutId, currency, state: 'due', export_id: null, ...VISIBLE },
      {
        $set: { export_id: exportId, state: 'processing', export_changed_at: new Date() },
        $inc: { export_count: 1 },
      },
    );
    return result.modified === 1;
  }

  /** Releases the payout if this export holds it (a repeat changes nothing). */
  async release(merchantId: string, payoutId: string, exportId: string): Promise<boolean> {
    const result = await this.payouts.updateOne(
      merchantId,
      { _id: payoutId, export_id: exportId },
      { $set: { export_id: null, export_changed_at: new Date() } },
    );
    return result.modified === 1;
  }

  /** Ids of the payouts an export holds. */
  async heldBy(merchantId: string, exportId: string): Promise<string[]> {
    const found = await this.payouts.find<{ _id: string }>(
      merchantId,
      { export_id: exportId },
      { projection: { _id: 1 } },
    );
    return found.map((doc) => doc._id).sort();
  }

  async holdOf(merchantId: string, payoutId: string): Promise<PayoutHold> {
    const doc = await this.payouts.findOne<Partial<PayoutHold>>(
      merchantId,
      { _id: payoutId },
      { projection: { export_id: 1, export_count: 1, export_changed_at: 1 } },
    );
    return {
      export_id: doc?.export_id ?? null,
      export_count: doc?.export_count ?? 0,
      export_changed_at: doc?.export_changed_at ?? null,
    };
  }

  async takeForPay(merchantId: string, payoutId: string): Promise<boolean> {
    const result = await this.payouts.updateOne(
      merchantId,
      { _id: payoutId, export_id: { $in: [null, PAY_HOLD] } },
      { $set: { export_id: PAY_HOLD, export_changed_at: new Date() } },
    );
    return result.matched === 1;
  }

  async stalePayHolds(olderThan: Date, limit: number): Promise<PayoutRecord[]> {
    // Across merchants (the sweep of stale pay holds). Scans on the local server (no index on
    // export_id alone); pay holds are few and brief.
    return this.payouts.model
      .find({ export_id: PAY_HOLD, export_changed_at: { $lte: olderThan } })
      .limit(limit)
      .lean<PayoutDoc[]>()
      .exec();
  }

  async releasePayHold(merchantId: string, payoutId: string): Promise<boolean> {
    return this.release(merchantId, payoutId, PAY_HOLD);
  }
}
