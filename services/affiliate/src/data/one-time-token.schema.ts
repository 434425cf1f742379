/**
 * The single-use links' tokens: portal sign-ins, e-mail and wallet confirmations. One shape
 * (only the token's hash stored, an expiry, used once) kept by one store
 * (`OneTimeTokenRepository`), a collection each; a kind adds the fields its confirmation needs.
 */
import { Schema, type Connection, type Model, type SchemaDefinition } from 'mongoose';
import type {
  EmailConfirmationRecord,
  SsoTokenRecord,
  WalletConfirmationRecord,
} from '../domain/records';

export type { EmailConfirmationRecord, SsoTokenRecord, WalletConfirmationRecord };

function tokenModel<R extends SsoTokenRecord>(
  connection: Connection,
  name: string,
  collection: string,
  extra: SchemaDefinition = {},
): Model<R> {
  const existing = connection.models[name] as Model<R> | undefined;
  if (existing) return existing;
  const schema = new Schema<R>(
    {
      _id: String,
      merchant_id: String,
      ...extra,
      token_hash: String,
      expires_at: Date,
      used_at: { type: Date, default: null },
    },
    { versionKey: false },
  );
  // The retention job's field (docs/retention.md); used on MongoDB 7, not by the local server.
  schema.index({ expires_at: 1 });
  schema.index({ token_hash: 1 }, { unique: true });
  return connection.model<R>(name, schema, collection);
}

export function ssoTokenModel(connection: Connection): Model<SsoTokenRecord> {
  return tokenModel<SsoTokenRecord>(connection, 'SsoToken', 'sso_tokens');
}

export function emailConfirmationModel(connection: Connection): Model<EmailConfirmationRecord> {
  return tokenModel<EmailConfirmationRecord>(
    connection,
    'EmailConfirmation',
    'email_confirmations',
    { email: String },
  );
}

export function walletConfirmationModel(connection: Connection): Model<WalletConfirmationRecord> {
  return tokenModel<WalletConfirmationRecord>(
    connection,
    'WalletConfirmation',
    'wallet_confirmations',
    { affiliate_id: String, wallet: String, email: String },
  );
}
