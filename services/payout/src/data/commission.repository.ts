/** The commission read model: what generation bundles and what payouts list. */
import type { FilterQuery, Model } from 'mongoose';
import type { CommissionCopies, DueFilters } from '../domain/ports';
import type { CommissionRecord } from '../domain/records';
import { upsertIfNewer } from './upsert-if-newer';

export class CommissionRepository implements CommissionCopies {
  constructor(private readonly model: Model<CommissionRecord>) {}

  /** Applies a commission event unless a newer one was applied; never touches `listed`. */
  async save(record: Omit<CommissionRecord, 'listed'>): Promise<boolean> {
    return upsertIfNewer(this.model, { ...record }, { listed: false });
  }

  async findById(merchantId: string, id: string): Promise<CommissionRecord | null> {
    return this.model.findOne({ _id: id, merchant_id: merchantId }).lean<CommissionRecord>().exec();
  }

  async findByIds(merchantId: string, ids: string[]): Promise<CommissionRecord[]> {
    if (ids.length === 0) return [];
    return this.model
      .find({ _id: { $in: [...new Set(ids)] }, merchant_id: merchantId })
      .lean<CommissionRecord[]>()
      .exec();
  }

  /** Due commissions no payout lists yet, oldest first (the order they are bundled in). */
  async findUnbundledDue(
    merchantId: string,
    filters: DueFilters,
    limit = 10_000,
  ): Promise<CommissionRecord[]> {
    const query: FilterQuery<CommissionRecord> = {
      merchant_id: merchantId,
      state: 'due',
      listed: false,
      // A held commission never becomes due; this keeps a payout from taking one regardless.
      held: { $ne: true },
    };
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    if (filters.currency) query.currency = filters.currency;
    return this.model
      .find(query)
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .lean<CommissionRecord[]>()
      .exec();
  }

  /** Merchants that have due commissions no payout lists (for the scheduler). */
  async merchantsWithUnbundledDue(): Promise<string[]> {
    const groups = await this.model
      .aggregate<{ _id: string }>([
        { $match: { state: 'due', listed: false, held: { $ne: true } } },
        { $group: { _id: '$merchant_id' } },
      ])
      .exec();
    return groups.map((group) => group._id);
  }

  async markListed(merchantId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.model
      .updateMany({ _id: { $in: ids }, merchant_id: merchantId }, { $set: { listed: true } })
      .exec();
  }
}
