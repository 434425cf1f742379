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
 * One handler shared by the referral and the money consumers, run strictly one event at a time:
 * both write the same affiliate documents, and FerretDB applies concurrent updates of one
 * document as read-modify-write, so two at once can lose each other's fields.
 */
export function derivedCountersHandler(counters: DerivedCounters) {
  let tail: Promise<unknown> = Promise.resolve();
  const handle = derivedCountersStep(counters);
  return (event: EventEnvelope): Promise<void> => {
    const run = tail.then(() => handle(event));
    tail = run.catch(() => undefined);
    return run;
  };
}

function derivedCountersStep(counters: DerivedCounters) {
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
