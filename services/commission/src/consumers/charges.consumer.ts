/** Attributed charges and refunds from the tracking service, in order per referral. */
import { eventHandlers, internalCallContext } from '@aff/messaging';
import type { ChargeUseCases } from '../domain/charges';
import type { HeldCommissions } from '../domain/held-commissions';

/**
 * Events of one referral run in order in a process: its commission count (max_commissions)
 * and a refund after its charge. Across replicas a refund may still come first; it is retried.
 */
export function chargesConsumer(charges: ChargeUseCases, held: HeldCommissions) {
  return eventHandlers(
    {
      'charge.attributed': (data, { event }) =>
        charges.onAttributed(internalCallContext(event.merchant_id), data),
      'charge.refund_attributed': (data, { event, delivery }) =>
        charges.onRefund(internalCallContext(event.merchant_id), data, delivery.count),
      // In the same lane as the referral's charges, so a review follows the charges before it.
      'referral.reviewed': (data, { event }) =>
        held.onReviewed(internalCallContext(event.merchant_id), data),
    },
    {
      'charge.attributed': (data) => data.referral.id,
      'charge.refund_attributed': (data) => data.referral_id,
      'referral.reviewed': (data) => data.id,
    },
  );
}
