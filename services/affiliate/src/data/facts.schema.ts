/**
 * Facts this service keeps from other services' events, only to derive counters and
 * commission statistics. Each is keyed by the other service's record id, so a replayed event
 * rewrites the same fact instead of counting twice.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CommissionFact, CouponReferralFact, ReferralFact, SaleFact } from '../domain/records';

export type { CommissionFact, CouponReferralFact, ReferralFact, SaleFact };

export function factModels(connection: Connection) {
  const referral = new Schema<ReferralFact>(
    {
      _id: String,
      merchant_id: String,
      affiliate_id: String,
      link_id: String,
      lead: Number,
      conversion: Number,
      pending_since: Date,
    },
    { versionKey: false },
  );
  // The local server (mongo-java-server) uses an index only for a filter with exactly its
  // fields; these make the derived counters' conditional writes index lookups (see
  // derived-counters.ts). On MongoDB they are redundant with `_id` and cheap.
  referral.index({ _id: 1, pending_since: 1 }, { unique: true });
  referral.index({ merchant_id: 1, affiliate_id: 1 });
  referral.index({ merchant_id: 1, link_id: 1 });
  const commission = new Schema<CommissionFact>(
    {
      _id: String,
      merchant_id: String,
      affiliate_id: String,
      currency: String,
      amount: Number,
      state: String,
      updated_at: String,
      pending_since: Date,
    },
    { versionKey: false },
  );
  commission.index({ _id: 1, pending_since: 1 }, { unique: true });
  commission.index({ _id: 1, merchant_id: 1, updated_at: 1 }, { unique: true });
  commission.index({ merchant_id: 1, affiliate_id: 1 });
  const sale = new Schema<SaleFact>(
    {
      _id: String,
      merchant_id: String,
      affiliate_id: String,
      currency: String,
      gross_cents: Number,
      net_cents: Number,
      updated_at: String,
      pending_since: Date,
    },
    { versionKey: false },
  );
  sale.index({ _id: 1, pending_since: 1 }, { unique: true });
  sale.index({ _id: 1, merchant_id: 1, updated_at: 1 }, { unique: true });
  sale.index({ merchant_id: 1, affiliate_id: 1 });
  const couponReferral = new Schema<CouponReferralFact>(
    { _id: String, merchant_id: String, coupon_id: String, lead: Number, conversion: Number },
    { versionKey: false },
  );
  couponReferral.index({ merchant_id: 1, coupon_id: 1 });
  return {
    couponReferrals: connection.model<CouponReferralFact>(
      'CouponReferralFact',
      couponReferral,
      'coupon_referral_facts',
    ) as Model<CouponReferralFact>,
    referrals: connection.model<ReferralFact>(
      'ReferralFact',
      referral,
      'referral_facts',
    ) as Model<ReferralFact>,
    commissions: connection.model<CommissionFact>(
      'CommissionFact',
      commission,
      'commission_facts',
    ) as Model<CommissionFact>,
    sales: connection.model<SaleFact>('SaleFact', sale, 'sale_facts') as Model<SaleFact>,
  };
}
export type FactModels = ReturnType<typeof factModels>;
