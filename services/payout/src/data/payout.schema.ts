/**
 * The payout as lists and reads show it. It is derived from facts (claims and payment steps)
 * and rewritten whole by `PayoutRefresher`: FerretDB applies conditional updates without
 * isolation, so nothing here is a lock or a guard, only a convergent cache.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { PayoutState } from '@aff/contracts';
import type { StoredPendingEvent } from '@aff/mongo';

export interface PayoutRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  currency: string;
  /**
   * Payouts of one affiliate and currency form a series; only the newest can be open. A unique
   * `series_key` (`<affiliate>:<currency>:<series>`) makes racing runs agree on it.
   */
  series: number;
  series_key: string;
  state: PayoutState;
  amount: number;
  commission_ids: string[];
  /** 0 until the payout holds a commission: such a payout is not shown. */
  commission_count: number;
  /** Of the derived figures; a change is what `payout.updated` announces. */
  fingerprint: string;
  paid_at: Date | null;
  paid_by_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Unused (events live in the payout event log); kept for the shared tenant repository. */
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<PayoutRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    currency: { type: String, required: true },
    series: { type: Number, required: true },
    series_key: { type: String, required: true },
    state: { type: String, required: true },
    amount: { type: Number, required: true },
    commission_ids: { type: [String], default: () => [] },
    commission_count: { type: Number, required: true },
    fingerprint: { type: String, default: '' },
    paid_at: { type: Date, default: null },
    paid_by_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, series_key: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, currency: 1, series: -1 });

export function payoutModel(connection: Connection): Model<PayoutRecord> {
  return connection.model<PayoutRecord>('Payout', schema, 'payouts');
}
