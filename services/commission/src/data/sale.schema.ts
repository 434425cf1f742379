import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { SaleRecord } from '../domain/records';

/** A sale as stored: the domain's record plus its outbox. */
export interface SaleDoc extends SaleRecord {
  pending_events: StoredPendingEvent[];
  /** The `commission_stats` reservations it was written under (absent: never counted). */
  stats_marks?: string[];
}

const schema = new Schema<SaleDoc>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    processor_charge_id: { type: String, required: true },
    processor_account_id: { type: String, default: null },
    referral_id: String,
    affiliate_id: String,
    currency: String,
    charged_at: Date,
    invoiced_at: { type: Date, default: null },
    charge_amount_cents: Number,
    refund_amount_cents: Number,
    tax_amount_cents: Number,
    sale_amount_cents: Number,
    referral: Schema.Types.Mixed,
    affiliate: Schema.Types.Mixed,
    created_at: Date,
    updated_at: Date,
    commission_pending: Boolean,
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
    stats_marks: { type: [String], default: undefined },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, processor_charge_id: 1 }, { unique: true });

export function saleModel(connection: Connection): Model<SaleDoc> {
  return connection.model<SaleDoc>('Sale', schema, 'sales');
}
