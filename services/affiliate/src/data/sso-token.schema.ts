import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The one live magic link of an affiliate (keyed by affiliate id, so issuing a new one replaces
 * and thereby invalidates the old). Only a hash of the token is stored.
 */
export interface SsoTokenRecord {
  _id: string;
  merchant_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}

const schema = new Schema<SsoTokenRecord>(
  {
    _id: String,
    merchant_id: String,
    token_hash: String,
    expires_at: Date,
    used_at: { type: Date, default: null },
  },
  { versionKey: false },
);
schema.index({ token_hash: 1 }, { unique: true });

export function ssoTokenModel(connection: Connection): Model<SsoTokenRecord> {
  return connection.model<SsoTokenRecord>('SsoToken', schema, 'sso_tokens');
}
