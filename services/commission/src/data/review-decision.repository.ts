/**
 * The merchants' review decisions on referrals, as `referral.reviewed` told them: one document
 * per referral, written once (the first decision is the only one tracking lets through).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
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

/** Keyed by merchant and referral (one per referral), and scoped by merchant like any record. */
const key = (merchantId: string, referralId: string) => `${merchantId}:${referralId}`;

export class ReviewDecisionRepository implements ReviewDecisions {
  private readonly decisions: ScopedRepository<ReviewDecisionDoc>;

  constructor(model: Model<ReviewDecisionDoc>) {
    this.decisions = new ScopedRepository(model);
  }

  async record(
    merchantId: string,
    referralId: string,
    decision: 'approved' | 'rejected',
  ): Promise<void> {
    // Only the first decision is kept: a later one finds the record and sets nothing.
    await this.decisions.upsert(
      merchantId,
      { _id: key(merchantId, referralId) },
      { $setOnInsert: { referral_id: referralId, decision, recorded_at: new Date() } },
    );
  }

  async find(merchantId: string, referralId: string): Promise<'approved' | 'rejected' | null> {
    const doc = await this.decisions.findById(merchantId, key(merchantId, referralId));
    return doc?.decision ?? null;
  }
}
