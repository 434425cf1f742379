/**
 * ScopedRepository over a real MongoDB-protocol server: every read and write of one merchant
 * leaves another merchant's records alone, even with the other's ids (and a `merchant_id` in
 * the caller's filter cannot widen it); `upsert` and `insertIfAbsent` answer false on a key
 * that exists instead of throwing.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { ScopedRepository, connectMongo, driverCollection } from '../src';

interface Fact {
  _id: string;
  merchant_id: string;
  kind: string;
  n: number;
  updated_at: Date;
}

let mongo: Connection;
let model: Model<Fact>;
let repo: ScopedRepository<Fact>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `scoped_repository_test_${Date.now()}`);
  model = mongo.model<Fact>(
    'Fact',
    new Schema<Fact>(
      { _id: String, merchant_id: String, kind: String, n: Number, updated_at: Date },
      { versionKey: false },
    ),
  );
  await model.init();
  repo = new ScopedRepository(model);
});

afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

const fact = (merchantId: string, n = 1): Fact => ({
  _id: randomUUID(),
  merchant_id: merchantId,
  kind: 'k',
  n,
  updated_at: new Date('2026-11-01T00:00:00Z'),
});

it("never reads, changes or deletes another merchant's records", async () => {
  const owner = randomUUID();
  const stranger = randomUUID();
  const mine = fact(owner);
  expect(await repo.insertIfAbsent(mine)).toBe(true);

  expect(await repo.findById(stranger, mine._id)).toBeNull();
  expect(await repo.findByIds(stranger, [mine._id])).toEqual([]);
  expect(await repo.findOne(stranger, { _id: mine._id, merchant_id: owner })).toBeNull();
  expect(await repo.find(stranger, { kind: 'k' })).toEqual([]);
  expect(await repo.exists(stranger, { _id: mine._id })).toBe(false);
  expect(await repo.aggregate(stranger, { _id: mine._id }, [])).toEqual([]);
  expect(await repo.updateOne(stranger, { _id: mine._id }, { $set: { n: 9 } })).toEqual({
    matched: 0,
    modified: 0,
  });
  expect(await repo.updateMany(stranger, { _id: mine._id }, { $set: { n: 9 } })).toBe(0);
  expect(
    await repo.findOneAndUpdate(stranger, { _id: mine._id }, { $set: { n: 9 } }, 'after'),
  ).toBeNull();
  expect(await repo.deleteOne(stranger, { _id: mine._id })).toBe(0);
  expect(await repo.deleteMany(stranger, { _id: mine._id })).toBe(0);
  await repo.deleteById(stranger, mine._id);

  expect(await repo.findById(owner, mine._id)).toEqual(mine);
  expect(await repo.findByIds(owner, [mine._id, mine._id])).toEqual([mine]);
  expect(await repo.exists(owner, { _id: mine._id })).toBe(true);
  expect(await repo.updateOne(owner, { _id: mine._id }, { $set: { n: 2 } })).toEqual({
    matched: 1,
    modified: 1,
  });
  expect(
    await repo.findOneAndUpdate(owner, { _id: mine._id }, { $set: { n: 3 } }, 'before'),
  ).toMatchObject({ n: 2 });
  expect(
    await repo.findOneAndUpdate(owner, { _id: mine._id }, { $set: { n: 4 } }, 'after'),
  ).toMatchObject({ n: 4 });
  expect(await repo.deleteMany(owner, { _id: mine._id })).toBe(1);
});

it('upserts into the merchant (merchant_id from the filter); false when the key exists but does not match', async () => {
  const owner = randomUUID();
  const id = randomUUID();
  expect(await repo.upsert(owner, { _id: id, n: { $lt: 5 } }, { $set: { n: 5, kind: 'k' } })).toBe(
    true,
  );
  expect(await repo.findById(owner, id)).toMatchObject({ merchant_id: owner, n: 5 });
  // Stored n is 5: the filter misses, the insert collides on `_id`.
  expect(await repo.upsert(owner, { _id: id, n: { $lt: 5 } }, { $set: { n: 4 } })).toBe(false);
  // Another merchant cannot take the id over either.
  expect(await repo.upsert(randomUUID(), { _id: id }, { $set: { n: 1 } })).toBe(false);
  expect((await repo.findById(owner, id))?.n).toBe(5);
  const copy = fact(owner);
  expect(await repo.insertIfAbsent(copy)).toBe(true);
  expect(await repo.insertIfAbsent({ ...copy, n: 2 })).toBe(false);
  expect((await repo.findById(owner, copy._id))?.n).toBe(1);
});

it('upsertIfNewer keeps the newest copy', async () => {
  const owner = randomUUID();
  const record = fact(owner, 1);
  expect(await repo.upsertIfNewer(record)).toBe(true);
  const newer = { ...record, n: 3, updated_at: new Date('2026-11-03T00:00:00Z') };
  expect(await repo.upsertIfNewer(newer)).toBe(true);
  const older = { ...record, n: 2, updated_at: new Date('2026-11-02T00:00:00Z') };
  expect(await repo.upsertIfNewer(older)).toBe(false);
  expect((await repo.findById(owner, record._id))?.n).toBe(3);
});

it("driverCollection is the model's own collection, typed by its record", () => {
  expect(driverCollection(model)).toBe(model.collection);
});

it("updateOneBatched and count never reach another merchant's record, even with its id", async () => {
  const owner = randomUUID();
  const stranger = randomUUID();
  const mine = fact(owner, 1);
  await repo.insertIfAbsent(mine);

  // In one batch: the stranger's update by the owner's id, and the owner's own two $inc.
  await Promise.all([
    repo.updateOneBatched(stranger, { _id: mine._id }, { $inc: { n: 100 } }),
    repo.updateOneBatched(stranger, { _id: mine._id, merchant_id: owner }, { $inc: { n: 100 } }),
    repo.updateOneBatched(owner, { _id: mine._id }, { $inc: { n: 2 } }),
    repo.updateOneBatched(owner, { _id: mine._id }, { $inc: { n: 3 } }),
  ]);
  expect((await repo.findById(owner, mine._id))?.n).toBe(6);
  // A blind update never creates a record for the stranger.
  expect(await repo.count(stranger, {})).toBe(0);
  expect(await repo.count(owner, { _id: mine._id })).toBe(1);
});
