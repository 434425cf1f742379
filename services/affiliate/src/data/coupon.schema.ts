import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { CouponRecord } from '../domain/records';

export type { CouponRecord };

/** The stored document: the record plus its outbox of events not yet relayed. */
export type CouponDocument = CouponRecord & { pending_events: StoredPendingEvent[] };

const schema = new Schema<CouponDocument>(
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

export function couponModel(connection: Connection): Model<CouponDocument> {
  return connection.model<CouponDocument>('AffiliateCoupon', schema, 'affiliate_coupons');
}
