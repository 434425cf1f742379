/** Claims of commissions by payouts (see claim.schema.ts). */
import type { Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { ClaimStore } from '../domain/ports';
import type { ClaimRecord } from '../domain/records';
import { claimId } from './claim.schema';

export class ClaimRepository implements ClaimStore {
  private readonly claims: ScopedRepository<ClaimRecord>;

  constructor(model: Model<ClaimRecord>) {
    this.claims = new ScopedRepository(model);
  }

  /** The claim that counts for a commission: its newest epoch. */
  async current(merchantId: string, commissionId: string): Promise<ClaimRecord | null> {
    return this.claims.findOne(
      merchantId,
      { commission_id: commissionId },
      { sort: { epoch: -1 } },
    );
  }

  /** False when that epoch was claimed already (by another run, maybe for the same payout). */
  async insert(
    merchantId: string,
    commissionId: string,
    epoch: number,
    payoutId: string,
  ): Promise<boolean> {
    return this.claims.insertIfAbsent({
      _id: claimId(merchantId, commissionId, epoch),
      merchant_id: merchantId,
      commission_id: commissionId,
      epoch,
      payout_id: payoutId,
      created_at: new Date(),
    });
  }

  /** Every claim made for a payout, oldest first. */
  async forPayout(merchantId: string, payoutId: string): Promise<ClaimRecord[]> {
    return this.claims.find(
      merchantId,
      { payout_id: payoutId },
      { sort: { created_at: 1, _id: 1 } },
    );
  }
}
