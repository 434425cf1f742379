/**
 * The overview's figures: the kept count by state as read, and the top affiliates presented in
 * the order the source gave them, with their `commission_stats`.
 */
import type { AffiliatePresenter } from '../src/domain/affiliate-presenter';
import type { AffiliateRecord } from '../src/domain/records';
import { ProgramStatsUseCase, type ProgramFiguresSource } from '../src/domain/program-stats';

it('reads the count by state and keeps the top order', async () => {
  const asked: [string, number][] = [];
  const source: ProgramFiguresSource = {
    states: async () => ({ active: 3, disabled: 1, suspicious: 0 }),
    top: async (merchantId, top) => {
      asked.push([merchantId, top]);
      return ['b', 'c', 'a'].map((id) => ({ _id: id }) as AffiliateRecord);
    },
  };
  const expanded: string[][] = [];
  const presenter = {
    present: async (_m: string, records: { _id: string }[], expand: Set<string>) => {
      expanded.push([...expand]);
      return records.map((r) => ({ id: r._id }));
    },
  } as unknown as AffiliatePresenter;
  const result = await new ProgramStatsUseCase(source, presenter).get('m', 3);
  expect(asked).toEqual([['m', 3]]);
  expect(result.affiliates).toEqual({ active: 3, disabled: 1, suspicious: 0 });
  expect(result.top_affiliates.map((a) => a.id)).toEqual(['b', 'c', 'a']);
  expect(expanded).toEqual([['commission_stats']]);
});
