import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One attempt of one delivery. Its id is the claim on one scheduled slot of that delivery,
 * `<delivery id>:<slot ms>` (then `:1`, `:2` … when a crashed sender's slot is taken over):
 * inserting it is the claim, because a unique insert is the one write FerretDB makes atomic.
 */
export interface AttemptRecord {
  _id: string;
  merchant_id: string;
  delivery_id: string;
  endpoint_id: string;
  /** The `request.id` of the body sent. */
  request_id: string;
  started_at: Date;
  /** Nobody else attempts this slot before then; after it, an unfinished attempt was interrupted. */
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
