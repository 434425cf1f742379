import { Schema, type Connection, type Model } from 'mongoose';
import type { SsoTokenRecord } from '../domain/records';

export type { SsoTokenRecord };

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
// The retention job's field (docs/retention.md); used on MongoDB 7, not by the local server.
schema.index({ expires_at: 1 });
schema.index({ token_hash: 1 }, { unique: true });

export function ssoTokenModel(connection: Connection): Model<SsoTokenRecord> {
  return (
    (connection.models.SsoToken as Model<SsoTokenRecord> | undefined) ??
    connection.model<SsoTokenRecord>('SsoToken', schema, 'sso_tokens')
  );
}
