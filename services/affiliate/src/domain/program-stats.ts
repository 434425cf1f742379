/**
 * The affiliate service's figures for the merchant console's overview, each read from what is
 * kept, not recounted per view: the affiliates by state (the merchant's kept count) and the top
 * affiliates by their stored `conversions` (a sorted read of `top` records, served by an index
 * on MongoDB 7). Visitors, leads and conversions are tracking's; the commission totals are the
 * commission service's.
 */
import type { AffiliateState, ProgramStats } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateStore } from './ports';

export interface ProgramFiguresSource {
  /** How many affiliates the merchant has in each state. */
  states(merchantId: string): Promise<Record<AffiliateState, number>>;
  /** The `top` affiliates' ids: most `conversions` first, then the newest. */
  topIds(merchantId: string, top: number): Promise<string[]>;
}

export class ProgramStatsUseCase {
  constructor(
    private readonly source: ProgramFiguresSource,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
  ) {}

  async get(merchantId: string, top: number): Promise<ProgramStats> {
    const [affiliates, ids] = await Promise.all([
      this.source.states(merchantId),
      this.source.topIds(merchantId, top),
    ]);
    const records = await this.affiliates.findByIds(merchantId, ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    records.sort((a, b) => (order.get(a._id) ?? 0) - (order.get(b._id) ?? 0));
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
