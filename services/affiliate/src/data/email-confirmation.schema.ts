import { Schema, type Connection, type Model } from 'mongoose';
import type { EmailConfirmationRecord } from '../domain/records';

export type { EmailConfirmationRecord };

const schema = new Schema<EmailConfirmationRecord>(
  {
    _id: String,
    merchant_id: String,
    email: String,
    token_hash: String,
    expires_at: Date,
    used_at: { type: Date, default: null },
  },
  { versionKey: false },
);
// The retention job's field (docs/retention.md); used on MongoDB 7, not by the local server.
schema.index({ expires_at: 1 });
schema.index({ token_hash: 1 }, { unique: true });

export function emailConfirmationModel(connection: Connection): Model<EmailConfirmationRecord> {
  return (
    (connection.models.EmailConfirmation as Model<EmailConfirmationRecord> | undefined) ??
    connection.model<EmailConfirmationRecord>('EmailConfirmation', schema, 'email_confirmations')
  );
}
