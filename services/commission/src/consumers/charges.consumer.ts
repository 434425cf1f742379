/** Attributed charges and refunds from the tracking service, in stream order (one at a time). */
import type { ChargeAttributed, ChargeRefundAttributed, EventEnvelope } from '@aff/contracts';
import { currentEventContext } from '@aff/messaging';
import type { ChargeUseCases } from '../domain/charges';

export const CHARGE_SUBJECTS = ['evt.charge.attributed', 'evt.charge.refund_attributed'];

export function chargesHandler(charges: ChargeUseCases) {
  return async (event: EventEnvelope): Promise<void> => {
    const ctx = { merchantId: event.merchant_id, events: currentEventContext() };
    if (event.type === 'charge.attributed')
      await charges.onAttributed(ctx, event.data as ChargeAttributed);
    if (event.type === 'charge.refund_attributed')
      await charges.onRefund(ctx, event.data as ChargeRefundAttributed);
  };
}
