/** Commissions move on in time (pending → due) and with payouts (→ paid). */
import { buildEvent, deterministicId } from '@aff/contracts';
import { internalCallContext } from '@aff/messaging';
import type { CommissionState, PayoutView } from '@aff/contracts';
import { nextVersionAt } from './charges';
import { commissionEventView } from './views';
import type { CallContext, CommissionStore, SaleStore } from './ports';
import type { CommissionRecord } from './records';

const UNPAID: CommissionState[] = ['pending', 'due'];
/** Commissions one due sweep moves at most. */
export const DUE_BATCH = 200;

export class SettlementUseCases {
  constructor(
    /** Relays the events it writes, after the write. */
    private readonly commissions: CommissionStore,
    private readonly sales: Pick<SaleStore, 'findById'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Pending commissions whose `due_at` has passed become due (all merchants; a scheduler tick). */
  async moveDue(limit = DUE_BATCH): Promise<number> {
    const now = this.now();
    const ready = await this.commissions.pendingDueBy(now, limit);
    for (const commission of ready) {
      const ctx = internalCallContext(commission.merchant_id, {});
      await this.transition(
        ctx,
        commission,
        ['pending'],
        { state: 'due', updated_at: nextVersionAt(now, commission.updated_at) },
        'commission.updated',
        // Per version: a commission rescheduled into the future can become due a second time.
        `${commission._id}:due:${new Date(commission.updated_at).toISOString()}`,
        { held: false },
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
      await this.markPaid(ctx, commission, paidAt, payout.id);
    }
  }

  /**
   * An unpaid commission is recorded as paid: by its payout, or by the merchant outside any
   * payout (`payoutId` null). One path, so `commission.paid` and the stats it moves are the same.
   * Null when it was no longer unpaid (another writer won).
   */
  async markPaid(
    ctx: CallContext,
    commission: CommissionRecord,
    paidAt: Date,
    payoutId: string | null,
  ): Promise<CommissionRecord | null> {
    return this.transition(
      ctx,
      commission,
      UNPAID,
      {
        state: 'paid',
        paid_at: paidAt,
        payout_id: payoutId,
        updated_at: nextVersionAt(this.now(), commission.updated_at),
      },
      'commission.paid',
      `${commission._id}:paid`,
      // A held commission waits for its review, whoever tries to pay it.
      { held: false },
    );
  }

  /**
   * A review approved the commission's referral: it is no longer held, and due at once when
   * its `due_at` has passed. Null when it was not (or no longer) held.
   */
  async release(ctx: CallContext, commission: CommissionRecord): Promise<CommissionRecord | null> {
    const now = this.now();
    return this.transition(
      ctx,
      commission,
      ['pending'],
      {
        held: false,
        state: new Date(commission.due_at) <= now ? 'due' : 'pending',
        updated_at: nextVersionAt(now, commission.updated_at),
      },
      'commission.updated',
      `${commission._id}:released`,
      { held: true },
    );
  }

  /** An unpaid commission is voided, as a full refund voids it. Null when it was no longer unpaid. */
  async voidUnpaid(
    ctx: CallContext,
    commission: CommissionRecord,
  ): Promise<CommissionRecord | null> {
    const now = this.now();
    return this.transition(
      ctx,
      commission,
      UNPAID,
      // A voided commission waits for nothing: a held one (rejected review) is held no more.
      {
        state: 'voided',
        voided_at: now,
        held: false,
        updated_at: nextVersionAt(now, commission.updated_at),
      },
      'commission.voided',
      `${commission._id}:voided`,
    );
  }

  /**
   * A new `due_at` for an unpaid commission; its state follows (due once the time has come,
   * pending before). Null when it was no longer the version read (paid, voided or changed).
   */
  async reschedule(
    ctx: CallContext,
    commission: CommissionRecord,
    dueAt: Date,
  ): Promise<CommissionRecord | null> {
    const now = this.now();
    const updatedAt = nextVersionAt(now, commission.updated_at);
    return this.transition(
      ctx,
      commission,
      UNPAID,
      {
        due_at: dueAt,
        // A held commission stays pending whatever its date; its review decides.
        state: dueAt <= now && !commission.held ? 'due' : 'pending',
        updated_at: updatedAt,
      },
      'commission.updated',
      `${commission._id}:due_at:${updatedAt.toISOString()}`,
      { version: commission.updated_at },
    );
  }

  private async transition(
    ctx: CallContext,
    commission: CommissionRecord,
    from: CommissionState[],
    set: Partial<CommissionRecord>,
    type: 'commission.updated' | 'commission.paid' | 'commission.voided',
    seed: string,
    /** Only while the commission is still this version, or (not) held. */
    only: { version?: Date; held?: boolean } = {},
  ): Promise<CommissionRecord | null> {
    const sale = await this.sales.findById(ctx.merchantId, commission.sale_id);
    if (!sale) return null;
    const event = {
      ...buildEvent(type, ctx.merchantId, commissionEventView({ ...commission, ...set }, sale)),
      id: deterministicId(seed),
    };
    return this.commissions.change(
      ctx.merchantId,
      commission._id,
      { states: from, ...only },
      set,
      [event],
      ctx.events,
    );
  }
}
