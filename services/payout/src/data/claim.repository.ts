/** Claims of commissions by payouts (see claim.schema.ts). */
import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';
import type { ClaimStore } from '../domain/ports';
import type { ClaimRecord } from '../domain/records';
import { claimId } from './claim.schema';

export class ClaimRepository implements ClaimStore {
  constructor(private readonly model: Model<ClaimRecord>) {}

  /** The claim that counts for a commission: its newest epoch. */
  async current(merchantId: string, commissionId: string): Promise<ClaimRecord | null> {
    return this.model
      .findOne({ merchant_id: merchantId, commission_id: commissionId })
      .sort({ epoch: -1 })
      .lean<ClaimRecord>()
      .exec();
  }

  /** False when that epoch was claimed already (by another run, maybe for the same payout). */
  async insert(
    merchantId: string,
    commissionId: string,
    epoch: number,
    payoutId: string,
  ): Promise<boolean> {
    try {
      await this.model.create({
        _id: claimId(merchantId, commissionId, epoch),
        merchant_id: merchantId,
        commission_id: commissionId,
        epoch,
        payout_id: payoutId,
        created_at: new Date(),
      });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Every claim made for a payout, oldest first. */
  async forPayout(merchantId: string, payoutId: string): Promise<ClaimRecord[]> {
    return this.model
      .find({ merchant_id: merchantId, payout_id: payoutId })
      .sort({ created_at: 1, _id: 1 })
      .lean<ClaimRecord[]>()
      .exec();
  }
}
