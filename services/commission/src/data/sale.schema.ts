import { Schema, type Connection, type Model } from 'mongoose';
import type { AffiliateView, ReferralView } from '@aff/contracts';
import type { StoredPendingEvent } from '@aff/mongo';

export interface SaleRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant: a processor charge is recorded once. */
  processor_charge_id: string;
  processor_account_id: string | null;
  referral_id: string;
  affiliate_id: string;
  currency: string;
  charged_at: Date;
  invoiced_at: Date | null;
  charge_amount_cents: number;
  refund_amount_cents: number;
  tax_amount_cents: number;
  sale_amount_cents: number;
  /** The referral and affiliate as they were when the charge was attributed. */
  referral: ReferralView;
  affiliate: AffiliateView;
  created_at: Date;
  updated_at: Date;
  /**
   * True from the sale's insert until its commission is written or decided against: a refund
   * that meets no commission meanwhile retries instead of missing it (see domain/charges.ts).
   */
  commission_pending?: boolean;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<SaleRecord>(
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
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, processor_charge_id: 1 }, { unique: true });

export function saleModel(connection: Connection): Model<SaleRecord> {
  return connection.model<SaleRecord>('Sale', schema, 'sales');
}
