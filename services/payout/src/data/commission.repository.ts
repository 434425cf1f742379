/** The commission read model: what generation bundles and what payouts list. */
import type { FilterQuery, Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { CommissionCopies, DueFilters } from '../domain/ports';
import type { CommissionRecord } from '../domain/records';

export class CommissionRepository implements CommissionCopies {
  private readonly copies: ScopedRepository<CommissionRecord>;

  constructor(model: Model<CommissionRecord>) {
    this.copies = new ScopedRepository(model);
  }

  /** Applies a commission event unless a newer one was applied; never touches `listed`. */
  async save(record: Omit<CommissionRecord, 'listed'>): Promise<boolean> {
    return this.copies.upsertIfNewer(record, { listed: false });
  }

  async findById(merchantId: string, id: string): Promise<CommissionRecord | null> {
    return this.copies.findById(merchantId, id);
  }

  async findByIds(merchantId: string, ids: string[]): Promise<CommissionRecord[]> {
    return this.copies.findByIds(merchantId, ids);
  }

  /** Due commissions no payout lists yet, oldest first (the order they are bundled in). */
  async findUnbundledDue(
    merchantId: string,
    filters: DueFilters,
    limit = 10_000,
  ): Promise<CommissionRecord[]> {
    const query: FilterQuery<CommissionRecord> = {
      state: 'due',
      listed: false,
      // A held commission never becomes due; this keeps a payout from taking one regardless.
      held: { $ne: true },
    };
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    if (filters.currency) query.currency = filters.currency;
    return this.copies.find(merchantId, query, { sort: { created_at: 1, _id: 1 }, limit });
  }

  /** Merchants that have due commissions no payout lists (for the scheduler: all merchants). */
  async merchantsWithUnbundledDue(): Promise<string[]> {
    const groups = await this.copies.model
      .aggregate<{ _id: string }>([
        { $match: { state: 'due', listed: false, held: { $ne: true } } },
        { $group: { _id: '$merchant_id' } },
      ])
      .exec();
    return groups.map((group) => group._id);
  }

  async markListed(merchantId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.copies.updateMany(merchantId, { _id: { $in: ids } }, { $set: { listed: true } });
  }
}
