/** Attributed charges and refunds from the tracking service, in order per referral. */
import type { ChargeAttributed, ChargeRefundAttributed, EventEnvelope } from '@aff/contracts';
import { currentEventContext, type Delivery } from '@aff/messaging';
import type { Logger } from '@aff/logging';
import type { ChargeUseCases } from '../domain/charges';

export const CHARGE_SUBJECTS = ['evt.charge.attributed', 'evt.charge.refund_attributed'];

export function chargesHandler(charges: ChargeUseCases) {
  return async (event: EventEnvelope, _log: Logger, delivery: Delivery): Promise<void> => {
    const ctx = { merchantId: event.merchant_id, events: currentEventContext() };
    if (event.type === 'charge.attributed')
      await charges.onAttributed(ctx, event.data as ChargeAttributed);
    if (event.type === 'charge.refund_attributed')
      await charges.onRefund(ctx, event.data as ChargeRefundAttributed, delivery.count);
  };
}

/**
 * Events of one referral run in order in a process: its commission count (max_commissions)
 * and a refund after its charge. Across replicas a refund may still come first; it is retried.
 */
export function chargeOrderingKey(event: EventEnvelope): string {
  const data = event.data as { referral?: { id?: string }; referral_id?: string };
  return data.referral?.id ?? data.referral_id ?? event.id;
}
