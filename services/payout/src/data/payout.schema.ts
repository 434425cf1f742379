/**
 * The payout as lists and reads show it. It is derived from facts (claims and payment steps)
 * and rewritten whole by `PayoutRefresher`: FerretDB applies conditional updates without
 * isolation, so nothing here is a lock or a guard, only a convergent cache.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { PayoutRecord } from '../domain/records';

/** A payout as stored: the domain's record plus the shared tenant repository's outbox field. */
export interface PayoutDoc extends PayoutRecord {
  /** Unused (events live in the payout event log); kept for the shared tenant repository. */
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<PayoutDoc>(
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
    export_id: { type: String, default: null },
    export_count: { type: Number, default: 0 },
    export_changed_at: { type: Date, default: null },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, series_key: 1 }, { unique: true });
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, affiliate_id: 1, currency: 1, series: -1 });
schema.index({ merchant_id: 1, export_id: 1 });
schema.index({ merchant_id: 1, currency: 1, state: 1 });

export function payoutModel(connection: Connection): Model<PayoutDoc> {
  return connection.model<PayoutDoc>('Payout', schema, 'payouts');
}
