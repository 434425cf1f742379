/**
 * Sales over MongoDB (the domain's `SaleStore`). Events written with a sale are relayed by the
 * tenant repository once the write is done; a duplicate key becomes the domain's
 * `DuplicateError`.
 */
import type { Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, EventRelay } from '@aff/messaging';
import { BulkUpdates, TenantRepository, mapDuplicate } from '@aff/mongo';
import type { SaleAmounts } from '../domain/commission-rules';
import type { SaleStore } from '../domain/ports';
import type { SaleRecord } from '../domain/records';
import type { SaleDoc } from './sale.schema';

export class SaleRepository implements SaleStore {
  private readonly tenant: TenantRepository<SaleDoc>;
  /** Clearing `commission_pending` rides on shared bulk writes. */
  private readonly bulk = new BulkUpdates();

  constructor(
    private readonly model: Model<SaleDoc>,
    relay: EventRelay,
  ) {
    this.tenant = new TenantRepository(model, { relay });
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
    return this.bulk.updateOne(
      this.model,
      { _id: saleId, merchant_id: merchantId },
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
