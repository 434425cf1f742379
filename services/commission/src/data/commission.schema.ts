import { Schema, type Connection, type Model } from 'mongoose';
import type { CampaignView, CommissionState } from '@aff/contracts';
import type { StoredPendingEvent } from '@aff/mongo';

export interface CommissionRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant: one commission per sale. */
  sale_id: string;
  referral_id: string;
  affiliate_id: string;
  /** The campaign used to calculate the commission, as it was then. */
  campaign: CampaignView;
  /** The amount when created; refunds reduce `amount` in proportion to it. */
  base_amount: number;
  amount: number;
  currency: string;
  state: CommissionState;
  due_at: Date;
  paid_at: Date | null;
  voided_at: Date | null;
  payout_id: string | null;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<CommissionRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    sale_id: { type: String, required: true },
    referral_id: String,
    affiliate_id: String,
    campaign: Schema.Types.Mixed,
    base_amount: Number,
    amount: Number,
    currency: String,
    state: String,
    due_at: Date,
    paid_at: { type: Date, default: null },
    voided_at: { type: Date, default: null },
    payout_id: { type: String, default: null },
    created_at: Date,
    updated_at: Date,
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, sale_id: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, referral_id: 1 });
schema.index({ state: 1, due_at: 1 });

export function commissionModel(connection: Connection): Model<CommissionRecord> {
  return connection.model<CommissionRecord>('Commission', schema, 'commissions');
}
