/** Read model of the commission service's commissions, built from its events. */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CommissionRecord } from '../domain/records';

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
    held: { type: Boolean, default: false },
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
