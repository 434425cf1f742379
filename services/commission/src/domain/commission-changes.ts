/**
 * What a merchant changes on a commission directly: `PUT /v1/commissions/:id` (`due_at`
 * reschedules an unpaid one, `paid_at` pays it outside a payout) and `DELETE` (voids an unpaid
 * one). The state changes go through the same settlement use cases as the scheduler, payouts
 * and refunds, so events and `commission_stats` move exactly as they do there.
 */
import { OPERATIONS, type CommissionView, type UpdateCommissionBody } from '@aff/contracts';
import { AppError, errors } from '@aff/api';
import type { SettlementUseCases } from './settlement';
import { toCommissionView } from './views';
import type { CallContext, CommissionStore, SaleStore } from './ports';
import type { CommissionRecord } from './records';

const UPDATE_FAILED = OPERATIONS.updateCommission.invalid;
const DELETE_FAILED = 'Could not delete commission.';
const ALREADY_PAID = 'Commission has already been paid';
const VOIDED = 'Commission has been voided';
const HELD = 'Commission is held for a review of its referral';
/** Concurrent writers (a payout, a refund, the scheduler): decide again on the newer version. */
const ATTEMPTS = 5;

/** Paid and voided commissions are final. */
function unchangeable(failure: string) {
  return (c: CommissionRecord): AppError | null =>
    c.state === 'paid'
      ? errors.invalid(failure, [ALREADY_PAID])
      : c.state === 'voided'
        ? errors.invalid(failure, [VOIDED])
        : null;
}

export class CommissionChanges {
  constructor(
    private readonly commissions: Pick<CommissionStore, 'findById'>,
    private readonly sales: Pick<SaleStore, 'findById'>,
    private readonly settlement: SettlementUseCases,
  ) {}

  /** `input`: the request body, checked against the contract map's schema. */
  async update(ctx: CallContext, id: string, input: UpdateCommissionBody): Promise<CommissionView> {
    let commission = await this.find(ctx, id);
    const { due_at: dueAt, paid_at: paidAt } = input;
    if (dueAt === undefined && paidAt === undefined) return this.present(ctx, commission);
    // Refused before anything changes, so a body with both fields is not half applied.
    if (paidAt !== undefined && commission.held) throw errors.invalid(UPDATE_FAILED, [HELD]);
    if (dueAt !== undefined)
      commission = await this.retry(ctx, commission, unchangeable(UPDATE_FAILED), (c) =>
        this.settlement.reschedule(ctx, c, dueAt),
      );
    if (paidAt !== undefined)
      commission = await this.retry(
        ctx,
        commission,
        (c) =>
          unchangeable(UPDATE_FAILED)(c) ?? (c.held ? errors.invalid(UPDATE_FAILED, [HELD]) : null),
        (c) => this.settlement.markPaid(ctx, c, paidAt, null),
      );
    return this.present(ctx, commission);
  }

  /** Voids an unpaid commission; one already voided answers the same (nothing changes). */
  async remove(ctx: CallContext, id: string): Promise<{ id: string; deleted: true }> {
    const commission = await this.find(ctx, id);
    await this.retry(
      ctx,
      commission,
      (c) => (c.state === 'paid' ? errors.invalid(DELETE_FAILED, [ALREADY_PAID]) : null),
      (c) => (c.state === 'voided' ? Promise.resolve(c) : this.settlement.voidUnpaid(ctx, c)),
    );
    return { id: commission._id, deleted: true };
  }

  /**
   * Runs `change` on the current version: `refuse` says why that version cannot change; a
   * change that lost to another writer (null) is decided again on the newer version.
   */
  private async retry(
    ctx: CallContext,
    first: CommissionRecord,
    refuse: (c: CommissionRecord) => AppError | null,
    change: (c: CommissionRecord) => Promise<CommissionRecord | null>,
  ): Promise<CommissionRecord> {
    let current = first;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const refusal = refuse(current);
      if (refusal) throw refusal;
      const changed = await change(current);
      if (changed) return changed;
      current = await this.find(ctx, current._id);
    }
    throw new AppError('unavailable', `Commission ${first._id} is changing too often; try again`);
  }

  private async find(ctx: CallContext, id: string): Promise<CommissionRecord> {
    const commission = await this.commissions.findById(ctx.merchantId, id);
    if (!commission) throw errors.notFound('Commission', id);
    return commission;
  }

  private async present(ctx: CallContext, commission: CommissionRecord): Promise<CommissionView> {
    const sale = await this.sales.findById(ctx.merchantId, commission.sale_id);
    return toCommissionView(commission, { campaign: true, sale });
  }
}
