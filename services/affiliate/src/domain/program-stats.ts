/**
 * The affiliate service's figures for the merchant console's overview, each read from what is
 * kept, not recounted per view: the affiliates by state (the merchant's kept count) and the top
 * affiliates by their stored `conversions` (the merchant's kept top list, data/top-affiliates.ts). Visitors, leads and conversions are tracking's; the commission totals are the
 * commission service's.
 */
import type { AffiliateState, ProgramStats } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateRecord } from './records';

export interface ProgramFiguresSource {
  /** How many affiliates the merchant has in each state. */
  states(merchantId: string): Promise<Record<AffiliateState, number>>;
  /** The first `top` affiliates: most `conversions` first, then the newest, then the greater id. */
  top(merchantId: string, top: number): Promise<AffiliateRecord[]>;
}

export class ProgramStatsUseCase {
  constructor(
    private readonly source: ProgramFiguresSource,
    private readonly presenter: AffiliatePresenter,
  ) {}

  async get(merchantId: string, top: number): Promise<ProgramStats> {
    const [affiliates, records] = await Promise.all([
      this.source.states(merchantId),
      this.source.top(merchantId, top),
    ]);
    return {
      affiliates,
      top_affiliates: await this.presenter.present(
        merchantId,
        records,
        new Set(['commission_stats']),
      ),
    };
  }
}
