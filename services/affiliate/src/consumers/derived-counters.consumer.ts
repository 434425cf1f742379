/** Commission and sale events feed the affiliates' `commission_stats`. */
import type { CommissionView, SaleView } from '@aff/contracts';
import { eventHandlers, type EventHandler } from '@aff/messaging';
import type { DerivedCounters } from '../domain/derived-counters';

/*
 * Events of one record (a commission or sale) are handled in order, keyed by the record;
 * everything else runs concurrently, because the statistics move by atomic `$inc`s (see
 * domain/derived-counters.ts).
 */
const byId = (data: CommissionView | SaleView) => data.id;

export function moneyCountersConsumer(counters: DerivedCounters) {
  const onCommission: EventHandler<
    'commission.created' | 'commission.updated' | 'commission.paid' | 'commission.voided'
  > = (data, { event }) =>
    counters.onCommission(event.merchant_id, data, event.type === 'commission.created');
  const onSale: EventHandler<'sale.created' | 'sale.updated' | 'sale.refunded'> = (
    data,
    { event },
  ) => counters.onSale(event.merchant_id, data, event.type === 'sale.created');
  return eventHandlers(
    {
      'commission.created': onCommission,
      'commission.updated': onCommission,
      'commission.paid': onCommission,
      'commission.voided': onCommission,
      'sale.created': onSale,
      'sale.updated': onSale,
      'sale.refunded': onSale,
    },
    {
      'commission.created': byId,
      'commission.updated': byId,
      'commission.paid': byId,
      'commission.voided': byId,
      'sale.created': byId,
      'sale.updated': byId,
      'sale.refunded': byId,
    },
  );
}
