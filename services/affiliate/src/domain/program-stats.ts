/**
 * The program's totals for the merchant console's overview: the affiliates' stored counters
 * (visitors, leads, conversions) and `commission_stats`, added up. Those are what the derived
 * counters keep exactly (derived-counters.ts); nothing here reads a referral or a commission.
 */
import { AFFILIATE_STATES, type CommissionStats, type ProgramStats } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateStore } from './ports';
import type { AffiliateRecord } from './records';

/** The stored figures of one affiliate, all the overview reads of it. */
export type AffiliateFigures = Pick<
  AffiliateRecord,
  '_id' | 'state' | 'visitors' | 'leads' | 'conversions' | 'commission_stats' | 'created_at'
>;

export interface ProgramFiguresSource {
  /** Every affiliate of the merchant, projected to its figures. */
  figures(merchantId: string): AsyncIterable<AffiliateFigures>;
}

type Totals = Omit<ProgramStats, 'top_affiliates'>;
const STAT_KEYS = ['unpaid', 'due', 'paid', 'total', 'gross_revenue', 'net_revenue'] as const;

/** Adds one affiliate's figures to the totals (pure). */
export function addFigures(totals: Totals, a: AffiliateFigures): void {
  totals.affiliates[a.state] = (totals.affiliates[a.state] ?? 0) + 1;
  totals.visitors += a.visitors ?? 0;
  totals.leads += a.leads ?? 0;
  totals.conversions += a.conversions ?? 0;
  for (const [currency, stats] of Object.entries(a.commission_stats?.currencies ?? {})) {
    const sum = (totals.commission_stats.currencies[currency] ??= Object.fromEntries(
      STAT_KEYS.map((key) => [key, { cents: 0, currency_iso: currency }]),
    ) as CommissionStats['currencies'][string]);
    for (const key of STAT_KEYS) sum[key].cents += stats[key]?.cents ?? 0;
  }
}

export function emptyTotals(): Totals {
  return {
    affiliates: Object.fromEntries(AFFILIATE_STATES.map((s) => [s, 0])) as Totals['affiliates'],
    visitors: 0,
    leads: 0,
    conversions: 0,
    commission_stats: { currencies: {} },
  };
}

/** More conversions first; among equals the newer affiliate (the lists' order). */
function ahead(a: AffiliateFigures, b: AffiliateFigures): boolean {
  if (a.conversions !== b.conversions) return a.conversions > b.conversions;
  return a.created_at.getTime() > b.created_at.getTime();
}

export class ProgramStatsUseCase {
  constructor(
    private readonly source: ProgramFiguresSource,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
  ) {}

  async get(merchantId: string, top: number): Promise<ProgramStats> {
    const totals = emptyTotals();
    const best: AffiliateFigures[] = [];
    for await (const figures of this.source.figures(merchantId)) {
      addFigures(totals, figures);
      // A short sorted list: one pass, no sort of every affiliate.
      const at = best.findIndex((b) => ahead(figures, b));
      if (at >= 0) best.splice(at, 0, figures);
      else if (best.length < top) best.push(figures);
      if (best.length > top) best.pop();
    }
    const records = await this.affiliates.findByIds(
      merchantId,
      best.map((b) => b._id),
    );
    const order = new Map(best.map((b, i) => [b._id, i]));
    records.sort((a, b) => (order.get(a._id) ?? 0) - (order.get(b._id) ?? 0));
    const sorted = Object.entries(totals.commission_stats.currencies).sort(([a], [b]) =>
      a.localeCompare(b),
    );
    return {
      ...totals,
      commission_stats: { currencies: Object.fromEntries(sorted) },
      top_affiliates: await this.presenter.present(
        merchantId,
        records,
        new Set(['commission_stats']),
      ),
    };
  }
}
