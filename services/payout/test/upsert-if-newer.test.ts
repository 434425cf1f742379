/**
 * Read-model writes over the real MongoDB-protocol server: a new record is inserted (with its
 * insert-only fields), a newer event replaces it, an older or repeated one changes nothing, and
 * racing first inserts of one record keep the newest version.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { connectMongo, upsertIfNewer } from '@aff/mongo';
import { commissionModel } from '../src/data/commission.schema';
import type { CommissionRecord } from '../src/domain/records';

let mongo: Connection;
let model: Model<CommissionRecord>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `payout_upsert_test_${Date.now()}`);
  model = commissionModel(mongo);
  await model.init();
});

afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

function version(id: string, amount: number, updatedAt: string) {
  return {
    _id: id,
    merchant_id: 'm1',
    affiliate_id: 'a1',
    campaign_id: null,
    amount,
    currency: 'USD',
    state: 'pending',
    processor_account_id: null,
    due_at: new Date('2026-12-01T00:00:00Z'),
    paid_at: null,
    voided_at: null,
    created_at: new Date('2026-11-01T00:00:00Z'),
    updated_at: new Date(updatedAt),
  };
}

async function stored(id: string) {
  return model.findById(id).lean<CommissionRecord>().exec();
}

it('inserts a new record with its insert-only fields, applies newer versions, ignores older ones', async () => {
  const id = randomUUID();
  await expect(
    upsertIfNewer(model, version(id, 100, '2026-11-02T00:00:00Z'), { listed: true }),
  ).resolves.toBe(true);
  expect(await stored(id)).toMatchObject({ amount: 100, listed: true, merchant_id: 'm1' });

  await expect(upsertIfNewer(model, version(id, 80, '2026-11-03T00:00:00Z'))).resolves.toBe(true);
  await expect(upsertIfNewer(model, version(id, 50, '2026-11-02T12:00:00Z'))).resolves.toBe(false);
  // The same version again is applied (and changes nothing).
  await expect(upsertIfNewer(model, version(id, 80, '2026-11-03T00:00:00Z'))).resolves.toBe(true);
  const after = await stored(id);
  expect(after).toMatchObject({ amount: 80, listed: true });
  expect(after!.updated_at.toISOString()).toBe('2026-11-03T00:00:00.000Z');
  await expect(model.countDocuments({ _id: id })).resolves.toBe(1);
});

it('keeps the newest version when first inserts of one record race', async () => {
  const ids = Array.from({ length: 30 }, () => randomUUID());
  await Promise.all(
    ids.flatMap((id) => [
      upsertIfNewer(model, version(id, 1, '2026-11-02T00:00:00Z')),
      upsertIfNewer(model, version(id, 3, '2026-11-04T00:00:00Z')),
      upsertIfNewer(model, version(id, 2, '2026-11-03T00:00:00Z')),
    ]),
  );
  const docs = await model
    .find({ _id: { $in: ids } })
    .lean<CommissionRecord[]>()
    .exec();
  expect(docs).toHaveLength(ids.length);
  expect(docs.map((doc) => doc.amount)).toEqual(ids.map(() => 3));
});

it('gives each of the writes sent together its own outcome', async () => {
  const [stale, fresh, newer] = [randomUUID(), randomUUID(), randomUUID()];
  await upsertIfNewer(model, version(stale, 5, '2026-11-05T00:00:00Z'));
  await upsertIfNewer(model, version(newer, 5, '2026-11-05T00:00:00Z'));
  // Called in one turn, so they leave in one unordered bulk write: the stale one's collision
  // must fail only itself.
  const outcomes = await Promise.all([
    upsertIfNewer(model, version(stale, 2, '2026-11-02T00:00:00Z')),
    upsertIfNewer(model, version(fresh, 7, '2026-11-07T00:00:00Z'), { listed: false }),
    upsertIfNewer(model, version(newer, 6, '2026-11-06T00:00:00Z')),
  ]);
  expect(outcomes).toEqual([false, true, true]);
  expect(await stored(stale)).toMatchObject({ amount: 5 });
  expect(await stored(fresh)).toMatchObject({ amount: 7, listed: false });
  expect(await stored(newer)).toMatchObject({ amount: 6 });
});
