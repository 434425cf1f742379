import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The one live e-mail confirmation link of an affiliate (keyed by affiliate id, so a newer
 * request replaces and thereby invalidates the older link). Only a hash of the token is stored.
 */
export interface EmailConfirmationRecord {
  _id: string;
  merchant_id: string;
  /** The address this link confirms. */
  email: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}

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
schema.index({ token_hash: 1 }, { unique: true });

export function emailConfirmationModel(connection: Connection): Model<EmailConfirmationRecord> {
  return connection.model<EmailConfirmationRecord>(
    'EmailConfirmation',
    schema,
    'email_confirmations',
  );
}
