/** Payout exports over MongoDB; a phase change and its events are one document write. */
import type { FilterQuery, Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, EventRelay } from '@aff/messaging';
import { TenantRepository } from '@aff/mongo';
import {
  SHOWN_PHASES,
  type ExportPhase,
  type ExportStore,
  type PayoutExportRecord,
} from '../domain/exports/export-ports';
import type { Page } from '../domain/ports';
import type { PayoutExportDoc } from './payout-export.schema';

const SHOWN = { phase: { $in: [...SHOWN_PHASES] } };

export class PayoutExportRepository implements ExportStore {
  private readonly tenant: TenantRepository<PayoutExportDoc>;

  constructor(
    private readonly model: Model<PayoutExportDoc>,
    relay: EventRelay,
  ) {
    // The tenant repository relays the events of a phase change once it is written.
    this.tenant = new TenantRepository(model, { relay });
  }

  async insert(record: PayoutExportRecord): Promise<void> {
    await this.model.create({ ...record, pending_events: [] });
  }

  async findShown(merchantId: string, id: string): Promise<PayoutExportRecord | null> {
    return this.tenant.findOne(merchantId, { _id: id, ...SHOWN });
  }

  async findAny(merchantId: string, id: string): Promise<PayoutExportRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  async page(merchantId: string, skip: number, limit: number): Promise<Page<PayoutExportRecord>> {
    return this.tenant.page(merchantId, SHOWN, skip, limit);
  }

  async advance(
    merchantId: string,
    id: string,
    from: ExportPhase,
    fields: Partial<PayoutExportRecord>,
    events: EventEnvelope[] = [],
    context: EventContext = {},
    olderThan?: Date,
  ): Promise<PayoutExportRecord | null> {
    const condition: FilterQuery<PayoutExportDoc> = { phase: from };
    if (olderThan) condition.updated_at = { $lte: olderThan };
    const result = await this.tenant.updateIf(
      merchantId,
      id,
      condition,
      { $set: { updated_at: new Date(), ...fields } },
      events,
      context,
    );
    return result?.record ?? null;
  }

  async stale(
    phases: ExportPhase[],
    olderThan: Date,
    limit: number,
  ): Promise<PayoutExportRecord[]> {
    return this.model
      .find({ phase: { $in: phases }, updated_at: { $lte: olderThan } })
      .sort({ updated_at: 1 })
      .limit(limit)
      .lean<PayoutExportDoc[]>()
      .exec();
  }
}
