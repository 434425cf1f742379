/**
 * The merchants' review decisions on referrals, as `referral.reviewed` told them: one document
 * per referral, written once (the first decision is the only one tracking lets through).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { ReviewDecisions } from '../domain/ports';

export interface ReviewDecisionDoc {
  _id: string;
  merchant_id: string;
  referral_id: string;
  decision: 'approved' | 'rejected';
  recorded_at: Date;
}

const schema = new Schema<ReviewDecisionDoc>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    referral_id: { type: String, required: true },
    decision: { type: String, required: true },
    recorded_at: { type: Date, required: true },
  },
  { versionKey: false },
);

export function reviewDecisionModel(connection: Connection): Model<ReviewDecisionDoc> {
  return connection.model<ReviewDecisionDoc>('ReviewDecision', schema, 'review_decisions');
}

const key = (merchantId: string, referralId: string) => `${merchantId}:${referralId}`;

export class ReviewDecisionRepository implements ReviewDecisions {
  constructor(private readonly model: Model<ReviewDecisionDoc>) {}

  async record(
    merchantId: string,
    referralId: string,
    decision: 'approved' | 'rejected',
  ): Promise<void> {
    await this.model
      .updateOne(
        { _id: key(merchantId, referralId) },
        {
          $setOnInsert: {
            merchant_id: merchantId,
            referral_id: referralId,
            decision,
            recorded_at: new Date(),
          },
        },
        { upsert: true },
      )
      .exec();
  }

  async find(merchantId: string, referralId: string): Promise<'approved' | 'rejected' | null> {
    const doc = await this.model
      .findById(key(merchantId, referralId))
      .lean<ReviewDecisionDoc>()
      .exec();
    return doc?.decision ?? null;
  }
}
