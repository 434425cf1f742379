import { Schema, type Connection, type Model } from 'mongoose';
import type { WalletConfirmationRecord } from '../domain/records';

export type { WalletConfirmationRecord };

const schema = new Schema<WalletConfirmationRecord>(
  {
    _id: String,
    merchant_id: String,
    affiliate_id: String,
    wallet: String,
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

export function walletConfirmationModel(connection: Connection): Model<WalletConfirmationRecord> {
  return (
    (connection.models.WalletConfirmation as Model<WalletConfirmationRecord> | undefined) ??
    connection.model<WalletConfirmationRecord>('WalletConfirmation', schema, 'wallet_confirmations')
  );
}
