import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { CommissionRecord } from '../domain/records';

/** A commission as stored: the domain's record plus its outbox. */
export interface CommissionDoc extends CommissionRecord {
  pending_events: StoredPendingEvent[];
  /** The `commission_stats` reservations it was written under (absent: never counted). */
  stats_marks?: string[];
}

const schema = new Schema<CommissionDoc>(
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
    held: { type: Boolean, default: false },
    created_at: Date,
    updated_at: Date,
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
    stats_marks: { type: [String], default: undefined },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, sale_id: 1 }, { unique: true });
// One index per list filter, each ending in the list's order (created_at, then _id, newest
// first) so MongoDB pages without sorting in memory (docs/local-database.md lists them).
schema.index({ merchant_id: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, state: 1, created_at: -1, _id: -1 });
schema.index({ merchant_id: 1, referral_id: 1 });
schema.index({ state: 1, due_at: 1 });

export function commissionModel(connection: Connection): Model<CommissionDoc> {
  return connection.model<CommissionDoc>('Commission', schema, 'commissions');
}
