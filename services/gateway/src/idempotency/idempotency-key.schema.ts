import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredAnswer } from './idempotency-store';

/**
 * An idempotency key kept in MongoDB while Redis is down. Expiry is checked in code; the TTL
 * index only sweeps old documents where the server supports it.
 */
export interface IdempotencyKeyRecord {
  _id: string;
  fingerprint: string;
  request: string;
  answer: StoredAnswer | null;
  expires_at: Date;
}

const schema = new Schema<IdempotencyKeyRecord>(
  {
    _id: String,
    fingerprint: { type: String, required: true },
    request: { type: String, required: true },
    answer: { type: Schema.Types.Mixed, default: null },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
schema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export function idempotencyKeyModel(connection: Connection): Model<IdempotencyKeyRecord> {
  return (
    (connection.models.IdempotencyKey as Model<IdempotencyKeyRecord> | undefined) ??
    connection.model<IdempotencyKeyRecord>('IdempotencyKey', schema, 'idempotency_keys')
  );
}
