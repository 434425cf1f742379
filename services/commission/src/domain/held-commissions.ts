/**
 * Commissions held for a review of their referral, and what the merchant's decision does to
 * them: approve releases them (due at once when `due_at` has passed), reject voids them. The
 * decision arrives as `referral.reviewed`; it is recorded first and the held commissions are
 * settled after, and a commission created held checks for a recorded decision after its
 * insert, so a charge and a review racing each other (on different replicas) still meet.
 */
import type { ReferralView } from '@aff/contracts';
import type { SettlementUseCases } from './settlement';
import type { CallContext, CommissionStore, ReviewDecisions } from './ports';
import type { CommissionRecord } from './records';

export class HeldCommissions {
  constructor(
    private readonly commissions: Pick<CommissionStore, 'heldOf'>,
    private readonly decisions: ReviewDecisions,
    private readonly settlement: Pick<SettlementUseCases, 'release' | 'voidUnpaid'>,
  ) {}

  /** `referral.reviewed`: idempotent, a redelivery finds nothing held any more. */
  async onReviewed(ctx: CallContext, referral: ReferralView): Promise<void> {
    const decision = referral.review_state;
    if (decision !== 'approved' && decision !== 'rejected') return;
    await this.decisions.record(ctx.merchantId, referral.id, decision);
    const held = await this.commissions.heldOf(ctx.merchantId, referral.id);
    for (const commission of held) await this.settle(ctx, commission, decision);
  }

  /** A commission just created held: settled at once when its referral was decided meanwhile. */
  async afterCreated(ctx: CallContext, commission: CommissionRecord): Promise<void> {
    if (!commission.held) return;
    const decision = await this.decisions.find(ctx.merchantId, commission.referral_id);
    if (decision) await this.settle(ctx, commission, decision);
  }

  private async settle(
    ctx: CallContext,
    commission: CommissionRecord,
    decision: 'approved' | 'rejected',
  ): Promise<void> {
    // Conditional on still being held (release) or unpaid (void): a second run changes nothing.
    if (decision === 'approved') await this.settlement.release(ctx, commission);
    else await this.settlement.voidUnpaid(ctx, commission);
  }
}
