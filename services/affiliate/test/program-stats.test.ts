/**
 * The overview's figures: the kept count by state as read, and the top affiliates presented in
 * the order the sorted read gave them (the store's findByIds returns them in any order).
 */
import type { AffiliatePresenter } from '../src/domain/affiliate-presenter';
import type { AffiliateStore } from '../src/domain/ports';
import { ProgramStatsUseCase, type ProgramFiguresSource } from '../src/domain/program-stats';

it('reads the count by state and keeps the top order', async () => {
  const asked: [string, number][] = [];
  const source: ProgramFiguresSource = {
    states: async () => ({ active: 3, disabled: 1, suspicious: 0 }),
    topIds: async (merchantId, top) => {
      asked.push([merchantId, top]);
      return ['b', 'c', 'a'];
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
  expect(result.top_affiliates.map((a) => a.id)).toEqual(['b', 'c', 'a']);
});
