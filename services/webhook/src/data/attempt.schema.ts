import { Schema, type Connection, type Model } from 'mongoose';
import type { AttemptRecord } from '../domain/records';

/** A line of the delivery log as stored before attempts were embedded (domain/records.ts). */
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
