import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { CampaignRecord } from '../domain/records';

export type { CampaignRecord };

/** The stored document: the record plus its outbox of events not yet relayed. */
export type CampaignDocument = CampaignRecord & { pending_events: StoredPendingEvent[] };

const schema = new Schema<CampaignDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    name: { type: String, required: true },
    url: { type: String, required: true },
    reward_type: { type: String, required: true },
    commission_percent: { type: Number, default: null },
    commission_amount_cents: { type: Number, default: null },
    commission_amount_currency: { type: String, default: null },
    minimum_payout_cents: { type: Number, required: true },
    days_until_commissions_are_due: { type: Number, required: true },
    days_before_referrals_expire: { type: Number, required: true },
    max_commission_period_months: { type: Number, default: null },
    max_commissions: { type: Number, default: null },
    fraud_policy: { type: Schema.Types.Mixed },
    ip_velocity_limit: { type: Number },
    is_default: { type: Boolean, required: true },
    default_slot: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, default_slot: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });

export function campaignModel(connection: Connection): Model<CampaignDocument> {
  return connection.model<CampaignDocument>('Campaign', schema, 'campaigns');
}
