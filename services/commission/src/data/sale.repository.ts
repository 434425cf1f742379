/**
 * Sales over MongoDB (the domain's `SaleStore`). Events written with a sale are relayed by the
 * tenant repository once the write is done; a duplicate key becomes the domain's
 * `DuplicateError`.
 */
import type { Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, EventRelay } from '@aff/messaging';
import { TenantRepository, mapDuplicate } from '@aff/mongo';
import type { SaleAmounts } from '../domain/commission-rules';
import { saleFigures } from '../domain/commission-stats';
import type { SaleStore } from '../domain/ports';
import type { SaleRecord } from '../domain/records';
import type { SaleDoc } from './sale.schema';
import type { CountedStats } from './commission.repository';
import { changeCounted, countInserts } from './stats-writes';

export class SaleRepository implements SaleStore {
  private readonly tenant: TenantRepository<SaleDoc>;

  constructor(
    model: Model<SaleDoc>,
    relay: EventRelay,
    private readonly counted?: CountedStats,
  ) {
    this.tenant = new TenantRepository(model, {
      relay,
      ...(counted ? { countBatch: countInserts<SaleDoc>(counted.stats, 's', saleFigures) } : {}),
    });
  }

  findById(merchantId: string, id: string): Promise<SaleRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  findByCharge(merchantId: string, chargeId: string): Promise<SaleRecord | null> {
    return this.tenant.findOne(merchantId, { processor_charge_id: chargeId });
  }

  findByIds(merchantId: string, ids: string[]): Promise<SaleRecord[]> {
    return this.tenant.findMany(merchantId, { _id: { $in: ids } });
  }

  async insert(sale: SaleRecord, events: EventEnvelope[], context: EventContext): Promise<void> {
    await mapDuplicate(this.tenant.insert(sale, events, context), 'Sale');
  }

  commissionDecided(merchantId: string, saleId: string): Promise<void> {
    // Rides on the repository's shared bulk writes.
    return this.tenant.updateOneBatched(
      merchantId,
      { _id: saleId },
      { $set: { commission_pending: false } },
    );
  }

  async recordRefund(
    merchantId: string,
    saleId: string,
    amounts: SaleAmounts,
    updatedAt: Date,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<boolean> {
    if (this.counted) {
      const changed = await changeCounted<SaleDoc>({
        ...this.counted,
        kind: 's',
        tenant: this.tenant,
        figures: saleFigures,
        merchantId,
        id: saleId,
        // Refunds only grow: only while the stored refund is smaller.
        allows: (before) => before.refund_amount_cents < amounts.refund_amount_cents,
        changes: { ...amounts, updated_at: updatedAt },
        events,
        context,
      });
      return changed !== null;
    }
    const result = await this.tenant.updateIf(
      merchantId,
      saleId,
      { refund_amount_cents: { $lt: amounts.refund_amount_cents } },
      { $set: { ...amounts, updated_at: updatedAt } },
      events,
      context,
    );
    return result !== null;
  }
}
