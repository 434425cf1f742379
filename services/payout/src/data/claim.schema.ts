/**
 * Claims: which payout a commission went into. Insert-only, and the unique `_id`
 * (`<merchant>:<commission>:<epoch>`) is the one guard FerretDB enforces atomically, so two
 * runs can never both claim a commission. A claim that lost a race to a payment (the payment
 * recorded its commissions without it) is superseded by a claim of the next epoch, never moved
 * or deleted.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { ClaimRecord } from '../domain/records';

const schema = new Schema<ClaimRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    commission_id: { type: String, required: true },
    epoch: { type: Number, required: true },
    payout_id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, payout_id: 1 });
schema.index({ merchant_id: 1, commission_id: 1, epoch: -1 });

export const claimId = (merchantId: string, commissionId: string, epoch: number) =>
  `${merchantId}:${commissionId}:${epoch}`;

export function claimModel(connection: Connection): Model<ClaimRecord> {
  return connection.model<ClaimRecord>('PayoutClaim', schema, 'payout_claims');
}
