/** Read model of the commission service's commissions, built from its events. */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CommissionState } from '@aff/contracts';

export interface CommissionRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  campaign_id: string | null;
  amount: number;
  currency: string;
  state: CommissionState;
  processor_account_id: string | null;
  due_at: Date;
  paid_at: Date | null;
  voided_at: Date | null;
  created_at: Date;
  /** The commission's own `updated_at`: an event older than the stored one is ignored. */
  updated_at: Date;
  /**
   * Set once a payout lists it: a cache that keeps generation runs from looking at commissions
   * already bundled. False again (a concurrent event write may reset it) only costs a look-up;
   * the claims (claim.schema.ts) decide.
   */
  listed: boolean;
}

const schema = new Schema<CommissionRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    campaign_id: { type: String, default: null },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    state: { type: String, required: true },
    processor_account_id: { type: String, default: null },
    due_at: { type: Date, required: true },
    paid_at: { type: Date, default: null },
    voided_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    listed: { type: Boolean, default: false },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, state: 1, listed: 1, created_at: 1 });
schema.index({ state: 1, listed: 1 });

export function commissionModel(connection: Connection): Model<CommissionRecord> {
  return connection.model<CommissionRecord>('Commission', schema, 'commissions');
}
