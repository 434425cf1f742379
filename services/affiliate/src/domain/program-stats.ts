/**
 * The program's figures for the merchant console's overview, each read from what is kept, not
 * recounted per view: the affiliates by state (the merchant's kept count), the top affiliates by
 * their stored `conversions` (a sorted read of `top` records, served by an index on MongoDB 7),
 * and the affiliates' `commission_stats` added up per currency. That last one still reads every
 * affiliate's `commission_stats` (projected) until the commission service keeps a total per
 * merchant (docs/console.md). Visitors, leads and conversions are tracking's.
 */
import type { AffiliateState, CommissionStats, ProgramStats } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateStore } from './ports';

export interface ProgramFiguresSource {
  /** How many affiliates the merchant has in each state. */
  states(merchantId: string): Promise<Record<AffiliateState, number>>;
  /** The `top` affiliates' ids: most `conversions` first, then the newest. */
  topIds(merchantId: string, top: number): Promise<string[]>;
  /** Every affiliate's stored `commission_stats`, streamed. */
  commissionStats(merchantId: string): AsyncIterable<CommissionStats | undefined>;
}

const STAT_KEYS = ['unpaid', 'due', 'paid', 'total', 'gross_revenue', 'net_revenue'] as const;

/** Adds one affiliate's `commission_stats` to the sum, per currency (pure). */
export function addStats(sum: CommissionStats, stats: CommissionStats | undefined): void {
  for (const [currency, one] of Object.entries(stats?.currencies ?? {})) {
    const into = (sum.currencies[currency] ??= Object.fromEntries(
      STAT_KEYS.map((key) => [key, { cents: 0, currency_iso: currency }]),
    ) as CommissionStats['currencies'][string]);
    for (const key of STAT_KEYS) into[key].cents += one[key]?.cents ?? 0;
  }
}

export class ProgramStatsUseCase {
  constructor(
    private readonly source: ProgramFiguresSource,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
  ) {}

  async get(merchantId: string, top: number): Promise<ProgramStats> {
    const [affiliates, ids, commissionStats] = await Promise.all([
      this.source.states(merchantId),
      this.source.topIds(merchantId, top),
      this.sumStats(merchantId),
    ]);
    const records = await this.affiliates.findByIds(merchantId, ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    records.sort((a, b) => (order.get(a._id) ?? 0) - (order.get(b._id) ?? 0));
    return {
      affiliates,
      commission_stats: commissionStats,
      top_affiliates: await this.presenter.present(
        merchantId,
        records,
        new Set(['commission_stats']),
      ),
    };
  }

  private async sumStats(merchantId: string): Promise<CommissionStats> {
    const sum: CommissionStats = { currencies: {} };
    for await (const stats of this.source.commissionStats(merchantId)) addStats(sum, stats);
    const sorted = Object.entries(sum.currencies).sort(([a], [b]) => a.localeCompare(b));
    return { currencies: Object.fromEntries(sorted) };
  }
}
