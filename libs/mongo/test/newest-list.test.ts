/**
 * The newest-first list over a real MongoDB-protocol server: the merchant's count document keeps
 * its count and newest ids in one update per insert batch (`$inc`, and `$push` with `$each`,
 * `$sort`, `$slice`), so a record written late with an earlier time (a queued visit) still takes
 * its place and only the newest are kept; a page among them reads the document and its records
 * by `_id` only (no sorted query, which scans on the local server); a page beyond them, or a
 * merchant whose records were written before the document kept ids, is the database's sorted
 * page, in the same order.
 */
import { randomUUID } from 'node:crypto';
import { NewestList, TenantRepository } from '../src';
import { rowStorePerFile } from './support/row-store';

const db = rowStorePerFile('newest_list_test', 3);

const ids = (page: { items: { _id: string }[] }) => page.items.map((r) => r._id);

/** The filters of the `find`s a call makes on the records. */
async function findsOf<R>(call: () => Promise<R>): Promise<{ result: R; filters: unknown[] }> {
  const spy = jest.spyOn(db.model, 'find');
  try {
    const result = await call();
    return { result, filters: spy.mock.calls.map((c) => (c as unknown[])[0]) };
  } finally {
    spy.mockRestore();
  }
}

it('pages newest first from the kept ids and beyond them, with the counted total', async () => {
  const merchant = `m_${randomUUID()}`;
  const repo = new TenantRepository(db.model, { counts: db.counts });
  const list = new NewestList(db.model, db.counts);
  const base = Date.now();
  const rows = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => ({
    _id: `${merchant}-${id}`,
    merchant_id: merchant,
    // Two records share a time: `_id` orders them.
    created_at: new Date(base + Math.min(i, 5) * 10),
  }));
  await Promise.all(rows.map((row) => repo.insert(row)));
  expect(await db.counts.get(merchant)).toBe(7);
  const newestFirst = rows.map((r) => r._id).reverse();

  const { result: first, filters } = await findsOf(() => list.page(merchant, 0, 2));
  expect(ids(first)).toEqual(newestFirst.slice(0, 2));
  expect(first.total).toBe(7);
  // Records read by `_id` only: no sorted query of the merchant's records.
  expect(filters).toEqual([{ merchant_id: merchant, _id: { $in: newestFirst.slice(0, 2) } }]);
  expect(ids(await list.page(merchant, 1, 2))).toEqual(newestFirst.slice(1, 3));
  // Past the three kept ids: the database's sorted page.
  expect(ids(await list.page(merchant, 2, 3))).toEqual(newestFirst.slice(2, 5));
  expect(ids(await list.page(merchant, 5, 5))).toEqual(newestFirst.slice(5));

  // Written late but stamped earlier than the newest (a queued visit): sorted into its place.
  const late = { _id: `${merchant}-late`, merchant_id: merchant, created_at: new Date(base + 45) };
  const newer = { _id: `${merchant}-new`, merchant_id: merchant, created_at: new Date(base + 99) };
  await repo.insert(newer);
  await repo.insert(late);
  const again = await list.page(merchant, 0, 3);
  expect(ids(again)).toEqual([newer._id, newestFirst[0], newestFirst[1]]);
  expect(again.total).toBe(9);
  const kept = await db.counts.read(merchant, 10);
  expect(kept.ids).toEqual([newer._id, newestFirst[0], newestFirst[1]]);
});

it('lists a small merchant whole from its document, and older data from the database', async () => {
  const small = `m_${randomUUID()}`;
  const repo = new TenantRepository(db.model, { counts: db.counts });
  const list = new NewestList(db.model, db.counts);
  await repo.insert({ _id: `${small}-1`, merchant_id: small, created_at: new Date(1000) });
  await repo.insert({ _id: `${small}-2`, merchant_id: small, created_at: new Date(2000) });
  const { result: page, filters } = await findsOf(() => list.page(small, 0, 25));
  expect(ids(page)).toEqual([`${small}-2`, `${small}-1`]);
  expect(page.total).toBe(2);
  expect(filters).toHaveLength(1);
  expect(ids(await list.page(small, 25, 25))).toEqual([]);

  // Records and a count written before the document kept ids: the sorted query answers.
  const old = `m_${randomUUID()}`;
  await db.model.insertMany([
    { _id: `${old}-1`, merchant_id: old, created_at: new Date(1000) },
    { _id: `${old}-2`, merchant_id: old, created_at: new Date(2000) },
  ]);
  await db.counts.model.create({ _id: old, count: 2 });
  const legacy = await list.page(old, 0, 25);
  expect(ids(legacy)).toEqual([`${old}-2`, `${old}-1`]);
  expect(legacy.total).toBe(2);
});
