/** The overview's figures over MongoDB (program-stats.ts). */
import type { Model } from 'mongoose';
import type { AffiliateState } from '@aff/contracts';
import { ScopedRepository } from '@aff/mongo';
import type { ProgramFiguresSource } from '../domain/program-stats';
import type { AffiliateDocument } from './affiliate.schema';
import type { AffiliateStateCounts } from './affiliate-state-counts';

export class ProgramFiguresRepository implements ProgramFiguresSource {
  private readonly affiliates: ScopedRepository<AffiliateDocument>;

  constructor(
    affiliates: Model<AffiliateDocument>,
    private readonly stateCounts: AffiliateStateCounts,
  ) {
    this.affiliates = new ScopedRepository(affiliates);
  }

  states(merchantId: string): Promise<Record<AffiliateState, number>> {
    return this.stateCounts.get(merchantId);
  }

  async topIds(merchantId: string, top: number): Promise<string[]> {
    // Exactly the index {merchant_id, conversions: -1, created_at: -1} on MongoDB 7: `top` keys
    // read. The local server scans the collection for it (docs/local-database.md).
    const docs = await this.affiliates.find<{ _id: string }>(
      merchantId,
      {},
      { projection: { _id: 1 }, sort: { conversions: -1, created_at: -1 }, limit: top },
    );
    return docs.map((d) => d._id);
  }
}
