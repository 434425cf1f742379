import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { ReferralRecord } from '../domain/records';
import type { CountMarks } from './referral-tally.schema';

export type { ReferralRecord };

/**
 * The stored document: the record plus its outbox of events not yet relayed, and the
 * reservations its counted steps were written under (data/referral-tallies.ts).
 */
export type ReferralDocument = ReferralRecord & {
  pending_events: StoredPendingEvent[];
  count_marks?: CountMarks;
};

const schema = new Schema<ReferralDocument>(
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
    fraud_signals: { type: Schema.Types.Mixed, default: () => [] },
    flagged: { type: Boolean, default: false },
    review_state: { type: String, default: null },
    reviewed_at: { type: Date, default: null },
    review_note: { type: String, default: null },
    address_hash: { type: String, default: null },
    // No default: absent until a charge reaches the referral (inserts stay as small as before).
    applied_events: { type: [String], default: undefined },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
    count_marks: { type: Schema.Types.Mixed },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, customer_key: 1 }, { unique: true });
// One index per list filter, each ending in the list's order (created_at, then _id, newest
// first) so MongoDB pages without sorting in memory (docs/local-database.md lists them).
schema.index({ merchant_id: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, conversion_state: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, email: 1 });
schema.index({ merchant_id: 1, link_id: 1 });
schema.index({ merchant_id: 1, updated_at: -1 });
schema.index({ merchant_id: 1, review_state: 1, created_at: -1 });
schema.index({ merchant_id: 1, flagged: 1, created_at: -1 });

export function referralModel(connection: Connection): Model<ReferralDocument> {
  return connection.model<ReferralDocument>('Referral', schema, 'referrals');
}
