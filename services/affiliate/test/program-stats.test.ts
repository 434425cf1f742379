/**
 * The overview's totals: the affiliates' stored counters and commission_stats added up per
 * currency, the count by state, and the top affiliates by conversions (newest first on a tie),
 * presented in that order.
 */
import type { CommissionStats } from '@aff/contracts';
import type { AffiliatePresenter } from '../src/domain/affiliate-presenter';
import type { AffiliateStore } from '../src/domain/ports';
import { ProgramStatsUseCase, type AffiliateFigures } from '../src/domain/program-stats';

const money = (cents: number, currency: string) => ({ cents, currency_iso: currency });
function stats(currency: string, total: number, gross: number): CommissionStats {
  return {
    currencies: {
      [currency]: {
        unpaid: money(total, currency),
        due: money(0, currency),
        paid: money(0, currency),
        total: money(total, currency),
        gross_revenue: money(gross, currency),
        net_revenue: money(gross, currency),
      },
    },
  };
}
const figures = (
  id: string,
  conversions: number,
  day: number,
  commission_stats: CommissionStats = { currencies: {} },
  state: AffiliateFigures['state'] = 'active',
): AffiliateFigures => ({
  _id: id,
  state,
  visitors: conversions * 10,
  leads: conversions * 2,
  conversions,
  commission_stats,
  created_at: new Date(Date.UTC(2026, 0, day)),
});

it('adds up the counters and stats and picks the top affiliates in order', async () => {
  const all = [
    figures('a', 1, 1, stats('USD', 100, 500)),
    figures('b', 5, 2, stats('EUR', 300, 900)),
    figures('c', 1, 3, stats('USD', 50, 250), 'disabled'),
    figures('d', 0, 4),
  ];
  const source = {
    async *figures() {
      yield* all;
    },
  };
  const store = {
    findByIds: async (_m: string, ids: string[]) => [...ids].reverse().map((id) => ({ _id: id })),
  } as unknown as AffiliateStore;
  const presenter = {
    present: async (_m: string, records: { _id: string }[]) => records.map((r) => ({ id: r._id })),
  } as unknown as AffiliatePresenter;
  const result = await new ProgramStatsUseCase(source, store, presenter).get('m', 3);
  expect(result).toMatchObject({
    affiliates: { active: 3, disabled: 1, suspicious: 0 },
    visitors: 70,
    leads: 14,
    conversions: 7,
  });
  expect(Object.keys(result.commission_stats.currencies)).toEqual(['EUR', 'USD']);
  expect(result.commission_stats.currencies.USD).toMatchObject({
    total: { cents: 150 },
    gross_revenue: { cents: 750 },
  });
  // Most conversions first; on a tie the newer (c before a); only `top` of them.
  expect(result.top_affiliates.map((a) => a.id)).toEqual(['b', 'c', 'a']);
});
