/**
 * Payouts (the derived documents lists and reads show; see domain/records.ts) over MongoDB: the
 * domain's `PayoutStore`. A refresh's events go to the payout event log (the outbox), which
 * relays them once the payout's write is done.
 */
import { randomUUID } from 'node:crypto';
import type { FilterQuery, Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import { TenantRepository, isDuplicateKeyError } from '@aff/mongo';
import type { Page, PayoutFilters, PayoutStore, PayoutTotalRow } from '../domain/ports';
import type { DerivedPayout, PayoutRecord } from '../domain/records';
import type { PayoutEventRepository } from './payout-event.repository';
import type { PayoutDoc } from './payout.schema';

/** A payout becomes visible once it holds a commission. */
const VISIBLE = { commission_count: { $gt: 0 } };

export class PayoutRepository implements PayoutStore {
  private readonly tenant: TenantRepository<PayoutDoc>;

  constructor(
    model: Model<PayoutDoc>,
    private readonly events: PayoutEventRepository,
  ) {
    this.tenant = new TenantRepository(model);
  }

  async findById(merchantId: string, id: string): Promise<PayoutRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  async findVisible(merchantId: string, id: string): Promise<PayoutRecord | null> {
    return this.tenant.findOne(merchantId, { _id: id, ...VISIBLE });
  }

  /** Newest first. */
  async findVisibleByIds(merchantId: string, ids: string[]): Promise<PayoutRecord[]> {
    return this.tenant.findMany(merchantId, { _id: { $in: ids }, ...VISIBLE });
  }

  async page(
    merchantId: string,
    filters: PayoutFilters,
    skip: number,
    limit: number,
  ): Promise<Page<PayoutRecord>> {
    const query: FilterQuery<PayoutDoc> = { ...VISIBLE };
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    if (filters.states?.length) query.state = { $in: filters.states };
    return this.tenant.page(merchantId, query, skip, limit);
  }

  /**
   * One grouped query over the merchant's unpaid payouts (the index {merchant_id, currency,
   * state} on MongoDB). Open payouts are one per affiliate and currency, so this reads at most
   * that many small documents, never the paid history.
   */
  async totals(merchantId: string): Promise<PayoutTotalRow[]> {
    const rows = await this.tenant.aggregate<{
      _id: { currency: string; state: PayoutTotalRow['state'] };
      count: number;
      amount: number;
    }>(merchantId, { state: { $in: ['pending', 'due', 'processing'] }, ...VISIBLE }, [
      {
        $group: {
          _id: { currency: '$currency', state: '$state' },
          count: { $sum: 1 },
          amount: { $sum: '$amount' },
        },
      },
    ]);
    return rows
      .map((row) => ({ ...row._id, count: row.count, amount: row.amount }))
      .sort((a, b) => a.currency.localeCompare(b.currency) || a.state.localeCompare(b.state));
  }

  /** The newest payout of an affiliate in a currency (the only one that can be open). */
  async latestInSeries(
    merchantId: string,
    affiliateId: string,
    currency: string,
  ): Promise<PayoutRecord | null> {
    return this.tenant.findOne(
      merchantId,
      { affiliate_id: affiliateId, currency },
      { sort: { series: -1 } },
    );
  }

  /** A new, empty (not yet shown) payout as number `series`; null when a racing run made it. */
  async createInSeries(
    merchantId: string,
    affiliateId: string,
    currency: string,
    series: number,
  ): Promise<PayoutRecord | null> {
    const now = new Date();
    try {
      const { record } = await this.tenant.insert({
        _id: randomUUID(),
        merchant_id: merchantId,
        affiliate_id: affiliateId,
        currency,
        series,
        series_key: `${affiliateId}:${currency}:${series}`,
        state: 'pending',
        amount: 0,
        commission_ids: [],
        commission_count: 0,
        fingerprint: '',
        paid_at: null,
        paid_by_id: null,
        created_at: now,
        updated_at: now,
      });
      return record;
    } catch (error) {
      if (isDuplicateKeyError(error)) return null;
      throw error;
    }
  }

  async saveRefresh(
    merchantId: string,
    id: string,
    derived: DerivedPayout | null,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void> {
    await this.events.appendThen(id, events, context, async () => {
      if (derived) await this.tenant.updateOne(merchantId, { _id: id }, { $set: derived });
    });
  }
}
