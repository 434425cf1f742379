import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One line of the delivery log: an attempt of one delivery, written once it has an answer (or,
 * for a sender that died mid-attempt, by the sender that takes its slot over, as interrupted).
 * Its id is the claim's token, so an attempt is logged once however often that is retried.
 */
export interface AttemptRecord {
  _id: string;
  merchant_id: string;
  delivery_id: string;
  endpoint_id: string;
  /** The `request.id` of the body sent. */
  request_id: string;
  started_at: Date;
  /** Until then nobody else attempted this slot. */
  lease_until: Date;
  finished_at: Date | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
}

const schema = new Schema<AttemptRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    delivery_id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    request_id: { type: String, required: true },
    started_at: { type: Date, required: true },
    lease_until: { type: Date, required: true },
    finished_at: { type: Date, default: null },
    response_status: { type: Number, default: null },
    duration_ms: { type: Number, default: null },
    error: { type: String, default: null },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, delivery_id: 1, started_at: 1 });
schema.index({ merchant_id: 1, endpoint_id: 1 });

export function attemptModel(connection: Connection): Model<AttemptRecord> {
  return connection.model<AttemptRecord>('WebhookAttempt', schema, 'webhook_attempts');
}
