/**
 * `PUT /v1/payouts/:id/pay`: the payout and its commissions are recorded as paid at once
 * (`processing`, `paid_at`) and the rest is queued. The pay hold on the payout excludes exports;
 * the `requested` step is both the guard (a unique insert: of two pay calls one wins) and the
 * durable job the queue works from.
 */
import type { PayoutView } from '@aff/contracts';
import { errors } from '@aff/api';
import { isPayable } from './payout-rules';
import type { PayoutPresenter } from './payout-presenter';
import type { PayoutRefresher } from './payout-refresher';
import type { PayoutHolds } from './exports/export-ports';
import type { CallContext, PaymentQueue, PaymentStepStore, PayoutStore } from './ports';
import type { RecordPayment } from './record-payment';

export const PAY_FAILED = 'Could not pay payout.';
export const ALREADY_PAID = 'Payout has already been paid';
export const IN_EXPORT = 'Payout is in an open payout export';

export class PayPayout {
  constructor(
    private readonly payouts: PayoutStore,
    private readonly steps: PaymentStepStore,
    private readonly recorder: RecordPayment,
    private readonly refresher: PayoutRefresher,
    private readonly presenter: PayoutPresenter,
    private readonly queue: PaymentQueue,
    private readonly holds: Pick<PayoutHolds, 'takeForPay'>,
  ) {}

  /** `apiKeyId`: the API secret that asked; it becomes `paid_by_id` on completion. */
  async pay(ctx: CallContext, id: string, apiKeyId: string | null): Promise<PayoutView> {
    const payout = await this.payouts.findVisible(ctx.merchantId, id);
    if (!payout) throw errors.notFound('Payout', id);
    // Processing already counts as paid (spec), so a second pay changes nothing.
    if (!isPayable(payout.state)) throw errors.invalid(PAY_FAILED, [ALREADY_PAID]);
    // Held first, in the field an export takes, so a pay and an export racing for this payout
    // never both win (the payout would be in a file and paid here too). Held by an open
    // export: it is being paid through the export's file (complete or cancel it).
    if (!(await this.holds.takeForPay(ctx.merchantId, id))) {
      throw errors.invalid(PAY_FAILED, [IN_EXPORT]);
    }
    const won = await this.steps.request(ctx.merchantId, id, new Date(), apiKeyId, ctx.events);
    if (!won) throw errors.invalid(PAY_FAILED, [ALREADY_PAID]);
    await this.recorder.record(ctx.merchantId, id);
    const record = await this.refresher.refresh(ctx.merchantId, id, ctx.events);
    this.queue.enqueue(ctx.merchantId, id);
    return this.presenter.presentOne(ctx.merchantId, record);
  }
}
