/**
 * The newest-first list over a real MongoDB-protocol server: pages come out in the database's
 * order (`created_at`, then `_id`, descending) whether they are served from the bounded cache or
 * from the database beyond it; the total is the merchant's counter, raised by the repository's
 * inserts; the cache never holds more than its size; and a record added while a merchant's ids
 * are being read is listed.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import {
  MerchantCounts,
  NewestList,
  TenantRepository,
  connectMongo,
  type NewestRow,
  type StoredPendingEvent,
} from '../src';

type Row = NewestRow & { pending_events: StoredPendingEvent[] };
let mongo: Connection;
let model: Model<Row>;
let counts: MerchantCounts;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `newest_list_test_${Date.now()}`);
  model = mongo.model<Row>(
    'Row',
    new Schema<Row>(
      { _id: String, merchant_id: String, created_at: Date, pending_events: [] },
      { versionKey: false },
    ),
    'rows',
  );
  // Indexes built before the first write: on the local server an insert racing a new
  // collection's index build fails ("Unknown error: null").
  await model.init();
  counts = new MerchantCounts(mongo, 'row_counts');
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const ids = (page: { items: { _id: string }[] }) => page.items.map((r) => r._id);

it('pages newest first from the cache and beyond it, with the counted total', async () => {
  const merchant = `m_${randomUUID()}`;
  const repo = new TenantRepository(model, { counts });
  const base = Date.now();
  const rows = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => ({
    _id: `${merchant}-${id}`,
    merchant_id: merchant,
    // Two records share a time: `_id` orders them.
    created_at: new Date(base + Math.min(i, 5) * 10),
  }));
  await Promise.all(rows.map((row) => repo.insert(row)));
  expect(await counts.get(merchant)).toBe(7);
  const list = new NewestList(model, counts, { created: 'referral.created', cacheSize: 3 });
  const newestFirst = rows.map((r) => r._id).reverse();
  const first = await list.page(merchant, 0, 2);
  expect(ids(first)).toEqual(newestFirst.slice(0, 2));
  expect(first.total).toBe(7);
  // Past the three cached ids: the database's sorted page.
  expect(ids(await list.page(merchant, 2, 3))).toEqual(newestFirst.slice(2, 5));
  expect(ids(await list.page(merchant, 5, 5))).toEqual(newestFirst.slice(5));

  // A new record is listed first at once; one older than the cached prefix is not cached.
  const newer = { _id: `${merchant}-h`, merchant_id: merchant, created_at: new Date(base + 99) };
  await repo.insert(newer);
  list.add(merchant, newer._id, newer.created_at);
  list.add(merchant, newer._id, newer.created_at); // a repeated event adds nothing
  const again = await list.page(merchant, 0, 3);
  expect(ids(again)).toEqual([newer._id, ...newestFirst.slice(0, 2)]);
  expect(again.total).toBe(8);
});

it('keeps a bounded number of merchants and ids, and lists what was added while reading', async () => {
  const list = new NewestList(model, counts, {
    created: 'referral.created',
    cacheSize: 3,
    maxMerchants: 1,
  });
  const a = `m_${randomUUID()}`;
  const b = `m_${randomUUID()}`;
  await model.insertMany([
    { _id: `${a}-1`, merchant_id: a, created_at: new Date(1000) },
    { _id: `${b}-1`, merchant_id: b, created_at: new Date(1000) },
  ]);
  // A merchant with fewer records than the cache holds is complete: its total needs no counter.
  const reading = list.page(a, 0, 10);
  list.add(a, `${a}-2`, new Date(2000)); // inserted while its ids are read
  await model.create({ _id: `${a}-2`, merchant_id: a, created_at: new Date(2000) });
  const page = await reading;
  expect(ids(page)).toEqual([`${a}-2`, `${a}-1`]);
  expect(page.total).toBe(2);
  await list.page(b, 0, 10);
  const cache = (list as unknown as { merchants: Map<string, { entries: unknown[] }> }).merchants;
  expect([...cache.keys()]).toEqual([b]);
  for (const t of [3000, 4000, 5000, 6000]) list.add(b, `${b}-${t}`, new Date(t));
  expect(cache.get(b)!.entries).toHaveLength(3);
});
