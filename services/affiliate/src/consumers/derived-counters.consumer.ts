/** Referral, commission and sale events feed the counters and statistics of affiliates. */
import type {
  CommissionView,
  CouponReferral,
  EventEnvelope,
  ReferralView,
  SaleView,
} from '@aff/contracts';
import type { DerivedCounters } from '../domain/derived-counters';

export const REFERRAL_SUBJECTS = ['evt.referral.>', 'evt.coupon_referral.>'];
export const MONEY_SUBJECTS = ['evt.commission.>', 'evt.sale.>'];

/**
 * One handler shared by the referral and the money consumers. Events of one record (a referral,
 * commission or sale) are handled in order; everything else runs concurrently, because every
 * counter moves by an atomic `$inc` (see domain/derived-counters.ts).
 */
export function derivedCountersHandler(counters: DerivedCounters) {
  return async (event: EventEnvelope): Promise<void> => {
    if (event.type.startsWith('referral.'))
      return counters.onReferral(event.merchant_id, event.data as ReferralView);
    if (event.type.startsWith('coupon_referral.'))
      return counters.onCouponReferral(event.merchant_id, event.data as CouponReferral);
    if (event.type.startsWith('commission.'))
      return counters.onCommission(event.merchant_id, event.data as CommissionView);
    if (event.type.startsWith('sale.'))
      return counters.onSale(event.merchant_id, event.data as SaleView);
  };
}

/** The record an event is about: its events are applied in order. */
export function counterOrderingKey(event: EventEnvelope): string {
  const data = event.data as { id?: unknown; referral_id?: unknown };
  const id = typeof data.id === 'string' ? data.id : data.referral_id;
  return typeof id === 'string' ? id : event.id;
}
