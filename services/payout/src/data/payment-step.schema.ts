/**
 * The steps of paying a payout, each inserted once (unique `<payout>:<step>`), which is what
 * makes them happen once under any race on FerretDB:
 * - `requested`: the pay call won (a second one collides: 422). Also the durable job.
 * - `recorded`: the commissions and amount that were paid, read after `requested` existed.
 * - `completed`: the queued work finished; who paid.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { PaymentStepName, PaymentStepRecord } from '../domain/records';

const schema = new Schema<PaymentStepRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    payout_id: { type: String, required: true },
    step: { type: String, required: true },
    created_at: { type: Date, required: true },
    paid_at: { type: Date, default: null },
    paid_by_id: { type: String, default: null },
    context: { type: Schema.Types.Mixed, default: null },
    unfinished: { type: Boolean, default: false },
    commission_ids: { type: [String], default: () => [] },
    amount: { type: Number, default: null },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, payout_id: 1 });
schema.index({ step: 1, unfinished: 1, created_at: 1 });

export const stepId = (payoutId: string, step: PaymentStepName) => `${payoutId}:${step}`;

export function paymentStepModel(connection: Connection): Model<PaymentStepRecord> {
  return connection.model<PaymentStepRecord>('PaymentStep', schema, 'payment_steps');
}
