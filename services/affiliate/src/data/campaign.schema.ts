import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

export interface CampaignRecord {
  _id: string;
  merchant_id: string;
  name: string;
  url: string;
  reward_type: 'percent' | 'amount';
  commission_percent: number | null;
  commission_amount_cents: number | null;
  commission_amount_currency: string | null;
  minimum_payout_cents: number;
  days_until_commissions_are_due: number;
  days_before_referrals_expire: number;
  max_commission_period_months: number | null;
  max_commissions: number | null;
  is_default: boolean;
  /** 'default' for the merchant's default campaign, else the campaign id: unique per merchant. */
  default_slot: string;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<CampaignRecord>(
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

export function campaignModel(connection: Connection): Model<CampaignRecord> {
  return connection.model<CampaignRecord>('Campaign', schema, 'campaigns');
}
