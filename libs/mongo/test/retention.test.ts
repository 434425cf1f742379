/**
 * `pruneExpired` over a real MongoDB-protocol server: it deletes what is older than a rule
 * keeps, in batches of the size asked for and at most as many batches as allowed per run (the
 * rest waits for the next run), and keeps everything newer.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { connectMongo, pruneExpired } from '../src';

interface Row {
  _id: string;
  at: Date;
}
let mongo: Connection;
let model: Model<Row>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `retention_test_${Date.now()}`);
  model = mongo.model<Row>(
    'Row',
    new Schema<Row>({ _id: String, at: Date }, { versionKey: false }),
    'rows',
  );
  await model.init();
});
afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

it('deletes what is older than kept, in bounded batches, and keeps the rest', async () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const old = Array.from({ length: 25 }, (_, i) => ({
    _id: `old-${i}`,
    at: new Date(now.getTime() - 2_000 - i),
  }));
  await model.insertMany([...old, { _id: 'recent', at: new Date(now.getTime() - 500) }]);
  const rule = { model, field: 'at', keepMs: 1_000 };

  // Two batches of ten: twenty of the twenty-five this run.
  expect(await pruneExpired([rule], now, { batch: 10, maxBatches: 2 })).toEqual({ rows: 20 });
  expect(await model.countDocuments()).toBe(6);
  expect(await pruneExpired([rule], now, { batch: 10, maxBatches: 2 })).toEqual({ rows: 5 });
  expect((await model.find().lean()).map((r) => r._id)).toEqual(['recent']);
});
