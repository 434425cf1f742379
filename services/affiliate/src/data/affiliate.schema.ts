import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { AffiliateRecord } from '../domain/records';

export type { AffiliateRecord };

/** The stored document: the record plus its outbox of events not yet relayed. */
export type AffiliateDocument = AffiliateRecord & { pending_events: StoredPendingEvent[] };

const schema = new Schema<AffiliateDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    campaign_id: { type: String, required: true },
    state: { type: String, required: true },
    first_name: { type: String, required: true },
    last_name: { type: String, required: true },
    email: { type: String, required: true },
    confirmed_at: { type: Date, default: null },
    unconfirmed_email: { type: String, default: null },
    wallet_a_email: { type: String, default: null },
    wallet_a_email_confirmed_at: { type: Date, default: null },
    wallet_b_email: { type: String, default: null },
    wallet_b_email_confirmed_at: { type: Date, default: null },
    unconfirmed_wallet_a_email: { type: String, default: null },
    unconfirmed_wallet_b_email: { type: String, default: null },
    receive_new_commission_notifications: { type: Boolean, required: true },
    sign_in_count: { type: Number, default: 0 },
    processor_customer_id: { type: String, default: null },
    customer_key: { type: String, required: true },
    processor_account_id: { type: String, default: null },
    visitors: { type: Number, default: 0 },
    leads: { type: Number, default: 0 },
    conversions: { type: Number, default: 0 },
    fraud_exempt: { type: Boolean, default: false },
    state_move: { type: Schema.Types.Mixed },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, email: 1 }, { unique: true });
schema.index({ merchant_id: 1, customer_key: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, campaign_id: 1, created_at: -1 });
// The console's state filter (findAffiliates), newest first like every list.
schema.index({ merchant_id: 1, state: 1, created_at: -1 });
// The sorted read behind the console overview's top affiliates (most conversions, then newest,
// then the greater id: a total order, the kept list's), when the kept list cannot answer
// (data/top-affiliates.ts). Replaces {merchant_id, conversions: -1, created_at: -1}, which
// could not give the `_id` tie-break; that index can be dropped where it exists.
schema.index({ merchant_id: 1, conversions: -1, created_at: -1, _id: -1 });

export function affiliateModel(connection: Connection): Model<AffiliateDocument> {
  return connection.model<AffiliateDocument>('Affiliate', schema, 'affiliates');
}
