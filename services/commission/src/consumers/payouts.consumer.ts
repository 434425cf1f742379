/** Payout events: once a payout shows `paid_at`, its commissions are recorded as paid. */
import type { PayoutView } from '@aff/contracts';
import { eventHandlers, internalCallContext, type EventHandler } from '@aff/messaging';
import type { SettlementUseCases } from '../domain/settlement';

/** Marking paid is a conditional update, so events of different payouts may run at once. */
export function payoutsConsumer(settlement: SettlementUseCases) {
  const onPayout: EventHandler<'payout.updated' | 'payout.paid'> = (data, { event }) =>
    settlement.onPayout(internalCallContext(event.merchant_id), data);
  const byPayout = (data: PayoutView) => data.id;
  return eventHandlers(
    { 'payout.updated': onPayout, 'payout.paid': onPayout },
    { 'payout.updated': byPayout, 'payout.paid': byPayout },
  );
}
