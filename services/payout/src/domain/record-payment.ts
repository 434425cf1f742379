/**
 * Records what a payment pays: the commissions claimed for the payout, read only after the
 * `requested` step exists (a run that claims later sees the payment and looks at this record),
 * and their amount without voided ones. Inserted once; whoever comes second reads the first.
 */
import type { ClaimRepository } from '../data/claim.repository';
import type { CommissionRepository } from '../data/commission.repository';
import type { PaymentStepRepository } from '../data/payment-step.repository';
import type { PaymentStepRecord } from '../data/payment-step.schema';
import { payoutAmount } from './payout-rules';

export class RecordPayment {
  constructor(
    private readonly claims: ClaimRepository,
    private readonly steps: PaymentStepRepository,
    private readonly commissions: CommissionRepository,
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
