/** The overview's figures over MongoDB (program-stats.ts). */
import type { AffiliateState } from '@aff/contracts';
import type { ProgramFiguresSource } from '../domain/program-stats';
import type { AffiliateRecord } from './affiliate.schema';
import type { AffiliateStateCounts } from './affiliate-state-counts';
import type { TopAffiliates } from './top-affiliates';

export class ProgramFiguresRepository implements ProgramFiguresSource {
  constructor(
    private readonly stateCounts: AffiliateStateCounts,
    private readonly topList: TopAffiliates,
  ) {}

  states(merchantId: string): Promise<Record<AffiliateState, number>> {
    return this.stateCounts.get(merchantId);
  }

  top(merchantId: string, n: number): Promise<AffiliateRecord[]> {
    return this.topList.top(merchantId, n);
  }
}
