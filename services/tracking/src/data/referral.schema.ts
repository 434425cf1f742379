import { Schema, type Connection, type Model } from 'mongoose';
import type { ConversionState, ReferralCustomer } from '@aff/contracts';
import type { StoredPendingEvent } from '@aff/mongo';

export interface ReferralRecord {
  _id: string;
  merchant_id: string;
  link_id: string | null;
  affiliate_id: string;
  campaign_id: string;
  coupon_id: string | null;
  visits: number;
  /** Lower-cased e-mail given as a lead or by the processor customer, for the `email` filter. */
  email: string | null;
  customer: ReferralCustomer | null;
  processor_customer_id: string | null;
  /** Unique per merchant: a processor customer belongs to one referral (null-safe, see affiliate.schema). */
  customer_key: string;
  processor_account_id: string | null;
  conversion_state: ConversionState;
  became_lead_at: Date | null;
  became_conversion_at: Date | null;
  expires_at: Date;
  deactivated_at: Date | null;
  landing_url: string | null;
  referrer: string | null;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<ReferralRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    link_id: { type: String, default: null },
    affiliate_id: { type: String, required: true },
    campaign_id: { type: String, required: true },
    coupon_id: { type: String, default: null },
    visits: { type: Number, required: true },
    email: { type: String, default: null },
    customer: { type: Schema.Types.Mixed, default: null },
    processor_customer_id: { type: String, default: null },
    customer_key: { type: String, required: true },
    processor_account_id: { type: String, default: null },
    conversion_state: { type: String, required: true },
    became_lead_at: { type: Date, default: null },
    became_conversion_at: { type: Date, default: null },
    expires_at: { type: Date, required: true },
    deactivated_at: { type: Date, default: null },
    landing_url: { type: String, default: null },
    referrer: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, customer_key: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, link_id: 1 });
schema.index({ merchant_id: 1, updated_at: -1 });

export function referralModel(connection: Connection): Model<ReferralRecord> {
  return connection.model<ReferralRecord>('Referral', schema, 'referrals');
}
