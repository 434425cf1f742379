/**
 * Records what a payment pays: the commissions claimed for the payout, read only after the
 * `requested` step exists (a run that claims later sees the payment and looks at this record),
 * and their amount without voided ones. Inserted once; whoever comes second reads the first.
 */
import { payoutAmount } from './payout-rules';
import type { ClaimStore, CommissionCopies, PaymentStepStore } from './ports';
import type { PaymentStepRecord } from './records';

export class RecordPayment {
  constructor(
    private readonly claims: ClaimStore,
    private readonly steps: PaymentStepStore,
    private readonly commissions: CommissionCopies,
  ) {}

  async record(merchantId: string, payoutId: string): Promise<PaymentStepRecord> {
    const { requested, recorded } = await this.steps.stepsOf(merchantId, payoutId);
    if (recorded) return recorded;
    if (!requested) throw new Error(`payout ${payoutId} was not asked to be paid`);
    const claims = await this.claims.forPayout(merchantId, payoutId);
    const ids = [...new Set(claims.map((claim) => claim.commission_id))];
    const amount = payoutAmount(await this.commissions.findByIds(merchantId, ids));
    return this.steps.insertOnce(merchantId, payoutId, 'recorded', {
      commission_ids: ids,
      amount,
      paid_at: requested.paid_at,
    });
  }
}
