/**
 * The payout events, one document each under the event's own (deterministic) id: inserting it
 * is the outbox write and, being unique, also what stops a second copy of the same event when
 * several processes derive it. The relay empties `pending_events` once published; the document
 * stays as the record that the event was sent.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

export interface PayoutEventRecord {
  _id: string;
  merchant_id: string;
  payout_id: string;
  type: string;
  created_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<PayoutEventRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    payout_id: { type: String, required: true },
    type: { type: String, required: true },
    created_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, payout_id: 1, created_at: 1 });

export function payoutEventModel(connection: Connection): Model<PayoutEventRecord> {
  return connection.model<PayoutEventRecord>('PayoutEvent', schema, 'payout_events');
}
