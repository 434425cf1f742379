/**
 * The queued half of paying: `processing` → `paid` with `paid_by_id`, and `payout.paid`. The
 * `completed` step is a unique insert, so however many processes run it (a restarted one, a
 * replica sweeping an abandoned payment), the payout is paid once.
 */
import type { PayoutRefresher } from './payout-refresher';
import type { PaymentStepStore } from './ports';
import type { RecordPayment } from './record-payment';

export class CompletePayment {
  constructor(
    private readonly steps: PaymentStepStore,
    private readonly recorder: RecordPayment,
    private readonly refresher: PayoutRefresher,
  ) {}

  async complete(merchantId: string, payoutId: string): Promise<void> {
    const { requested } = await this.steps.stepsOf(merchantId, payoutId);
    if (!requested) return;
    // A process that died right after the request had not recorded it yet.
    await this.recorder.record(merchantId, payoutId);
    await this.steps.insertOnce(merchantId, payoutId, 'completed', {
      paid_by_id: requested.paid_by_id,
    });
    await this.refresher.refresh(merchantId, payoutId, requested.context ?? {});
    await this.steps.finish(merchantId, payoutId);
  }
}
