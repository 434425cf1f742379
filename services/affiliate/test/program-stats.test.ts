/**
 * The overview's figures: the kept count by state as read, commission_stats added up per
 * currency (sorted by currency), and the top affiliates presented in the order the sorted read
 * gave them (the store's findByIds returns them in any order).
 */
import type { CommissionStats } from '@aff/contracts';
import type { AffiliatePresenter } from '../src/domain/affiliate-presenter';
import type { AffiliateStore } from '../src/domain/ports';
import { ProgramStatsUseCase, type ProgramFiguresSource } from '../src/domain/program-stats';

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

it('reads the count by state, adds up the stats and keeps the top order', async () => {
  const asked: [string, number][] = [];
  const source: ProgramFiguresSource = {
    states: async () => ({ active: 3, disabled: 1, suspicious: 0 }),
    topIds: async (merchantId, top) => {
      asked.push([merchantId, top]);
      return ['b', 'c', 'a'];
    },
    async *commissionStats() {
      yield stats('USD', 100, 500);
      yield stats('EUR', 300, 900);
      yield undefined;
      yield stats('USD', 50, 250);
    },
  };
  const store = {
    findByIds: async (_m: string, ids: string[]) => [...ids].reverse().map((id) => ({ _id: id })),
  } as unknown as AffiliateStore;
  const presenter = {
    present: async (_m: string, records: { _id: string }[]) => records.map((r) => ({ id: r._id })),
  } as unknown as AffiliatePresenter;
  const result = await new ProgramStatsUseCase(source, store, presenter).get('m', 3);
  expect(asked).toEqual([['m', 3]]);
  expect(result.affiliates).toEqual({ active: 3, disabled: 1, suspicious: 0 });
  expect(Object.keys(result.commission_stats.currencies)).toEqual(['EUR', 'USD']);
  expect(result.commission_stats.currencies.USD).toMatchObject({
    total: { cents: 150 },
    gross_revenue: { cents: 750 },
  });
  expect(result.top_affiliates.map((a) => a.id)).toEqual(['b', 'c', 'a']);
});
