/** Referral, commission and sale events feed the counters and statistics of affiliates. */
import type { CommissionView, ReferralView, SaleView } from '@aff/contracts';
import { eventHandlers, type EventHandler } from '@aff/messaging';
import type { DerivedCounters } from '../domain/derived-counters';

/*
 * Events of one record (a referral, commission or sale) are handled in order, keyed by the
 * record; everything else runs concurrently, because every counter moves by an atomic `$inc`
 * (see domain/derived-counters.ts).
 */
const byId = (data: ReferralView | CommissionView | SaleView) => data.id;

export function referralCountersConsumer(counters: DerivedCounters) {
  const onReferral: EventHandler<
    'referral.created' | 'referral.lead' | 'referral.converted' | 'referral.updated'
  > = (data, { event }) =>
    counters.onReferral(event.merchant_id, data, event.type === 'referral.created');
  return eventHandlers(
    {
      'referral.created': onReferral,
      'referral.lead': onReferral,
      'referral.converted': onReferral,
      'referral.updated': onReferral,
      'coupon_referral.updated': (data, { event }) =>
        counters.onCouponReferral(event.merchant_id, data),
    },
    {
      'referral.created': byId,
      'referral.lead': byId,
      'referral.converted': byId,
      'referral.updated': byId,
      'coupon_referral.updated': (data) => data.referral_id,
    },
  );
}

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
