/** Commissions move on in time (pending → due) and with payouts (→ paid). */
import { buildEvent, deterministicId } from '@aff/contracts';
import type { PayoutView } from '@aff/contracts';
import type { Model } from 'mongoose';
import type { TenantRepository } from '@aff/mongo';
import type { CommissionRecord } from '../data/commission.schema';
import type { SaleRecord } from '../data/sale.schema';
import { nextVersionAt } from './charges';
import { commissionEventView } from './views';
import type { CallContext, EventRelay } from './ports';

export class SettlementUseCases {
  constructor(
    private readonly commissions: TenantRepository<CommissionRecord>,
    private readonly sales: TenantRepository<SaleRecord>,
    private readonly relay: EventRelay,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Pending commissions whose `due_at` has passed become due (all merchants; a scheduler tick). */
  async moveDue(model: Model<CommissionRecord>, limit = 200): Promise<number> {
    const now = this.now();
    const ready = await model
      .find({ state: 'pending', due_at: { $lte: now } })
      .limit(limit)
      .lean<CommissionRecord[]>()
      .exec();
    for (const commission of ready) {
      const ctx = { merchantId: commission.merchant_id, events: {} };
      await this.transition(
        ctx,
        commission,
        ['pending'],
        { state: 'due', updated_at: nextVersionAt(now, commission.updated_at) },
        'commission.updated',
        `${commission._id}:due`,
      );
    }
    return ready.length;
  }

  /** A payout was paid (it shows `paid_at`): its commissions are recorded as paid at that time. */
  async onPayout(ctx: CallContext, payout: PayoutView): Promise<void> {
    if (!payout.paid_at) return;
    const paidAt = new Date(payout.paid_at);
    for (const entry of payout.commissions ?? []) {
      const commission = await this.commissions.findById(ctx.merchantId, entry.id);
      if (!commission || commission.state === 'paid' || commission.state === 'voided') continue;
      await this.transition(
        ctx,
        commission,
        ['pending', 'due'],
        {
          state: 'paid',
          paid_at: paidAt,
          payout_id: payout.id,
          updated_at: nextVersionAt(this.now(), commission.updated_at),
        },
        'commission.paid',
        `${commission._id}:paid`,
      );
    }
  }

  private async transition(
    ctx: CallContext,
    commission: CommissionRecord,
    from: string[],
    set: Partial<CommissionRecord>,
    type: 'commission.updated' | 'commission.paid',
    seed: string,
  ): Promise<void> {
    const sale = await this.sales.findById(ctx.merchantId, commission.sale_id);
    if (!sale) return;
    const event = {
      ...buildEvent(type, ctx.merchantId, commissionEventView({ ...commission, ...set }, sale)),
      id: deterministicId(seed),
    };
    const result = await this.commissions.updateIf(
      ctx.merchantId,
      commission._id,
      { state: { $in: from } },
      { $set: set },
      [event],
      ctx.events,
    );
    if (result) this.relay.relay(result.pending);
  }
}
