/** Payout events: once a payout shows `paid_at`, its commissions are recorded as paid. */
import type { EventEnvelope, PayoutView } from '@aff/contracts';
import { currentEventContext } from '@aff/messaging';
import type { SettlementUseCases } from '../domain/settlement';

export const PAYOUT_SUBJECTS = ['evt.payout.updated', 'evt.payout.paid'];

export function payoutsHandler(settlement: SettlementUseCases) {
  return async (event: EventEnvelope): Promise<void> => {
    await settlement.onPayout(
      { merchantId: event.merchant_id, events: currentEventContext() },
      event.data as PayoutView,
    );
  };
}
