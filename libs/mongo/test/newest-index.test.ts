/**
 * The in-memory newest-first index over a real MongoDB-protocol server: its order matches the
 * database's (`created_at`, then `_id`, descending), and a record added while a reload reads the
 * collection (a reconnect under load) is still listed after the reload.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { NewestIndex, connectMongo, type NewestIndexRow } from '../src';

let mongo: Connection;
let model: Model<NewestIndexRow>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, 'newest_index_test');
  model = mongo.model<NewestIndexRow>(
    'Row',
    new Schema<NewestIndexRow>(
      { _id: String, merchant_id: String, created_at: Date },
      { versionKey: false },
    ),
    'rows',
  );
  // Indexes built before the first write (the tenant key index): on the local server an insert
  // racing a new collection's index build fails ("Unknown error: null").
  await model.init();
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const index = () => NewestIndex.of(model, 'referral.created');

it('lists a merchant’s records newest first, as loaded from the database', async () => {
  const merchant = `m_${randomUUID()}`;
  const base = Date.now();
  await model.insertMany([
    { _id: 'a', merchant_id: merchant, created_at: new Date(base) },
    { _id: 'c', merchant_id: merchant, created_at: new Date(base + 10) },
    { _id: 'b', merchant_id: merchant, created_at: new Date(base + 10) },
  ]);
  const newest = index();
  await newest.load();
  expect(newest.page(merchant, 0, 10)).toEqual(['c', 'b', 'a']);
  newest.add(merchant, 'd', new Date(base + 5));
  newest.add(merchant, 'd', new Date(base + 5)); // a repeated event adds nothing
  expect(newest.page(merchant, 0, 10)).toEqual(['c', 'b', 'd', 'a']);
  expect(newest.count(merchant)).toBe(4);
  expect(newest.page(merchant, 1, 2)).toEqual(['b', 'd']);
});

it('keeps a record added while a reload is reading the collection', async () => {
  const merchant = `m_${randomUUID()}`;
  await model.create({ _id: `old-${merchant}`, merchant_id: merchant, created_at: new Date() });
  const newest = index();
  await newest.load();
  const reload = newest.load();
  // Added after the reload began and before its snapshot replaced the index (the insert was
  // not in the collection when the reload read it).
  newest.add(merchant, `new-${merchant}`, new Date(Date.now() + 1000));
  await reload;
  expect(newest.page(merchant, 0, 10)).toEqual([`new-${merchant}`, `old-${merchant}`]);
  expect(newest.count(merchant)).toBe(2);
});
