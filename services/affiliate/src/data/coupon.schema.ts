import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

export interface CouponRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant; the code customers enter at checkout. */
  code: string;
  affiliate_id: string;
  campaign_id: string;
  processor_coupon_id: string | null;
  leads: number;
  conversions: number;
  archived: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<CouponRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    code: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    campaign_id: { type: String, required: true },
    processor_coupon_id: { type: String, default: null },
    leads: { type: Number, default: 0 },
    conversions: { type: Number, default: 0 },
    archived: { type: Boolean, default: false },
    archived_at: { type: Date, default: null },
    created_at: Date,
    updated_at: Date,
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, code: 1 }, { unique: true });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, created_at: -1 });

export function couponModel(connection: Connection): Model<CouponRecord> {
  return connection.model<CouponRecord>('AffiliateCoupon', schema, 'affiliate_coupons');
}
