/**
 * Seeding a read-model copy from a burst of events over the real MongoDB-protocol server: the
 * handlers of one burst share one insert (one written document, not one failed insert each),
 * and a later seed of a known copy writes nothing.
 */
import type { Connection, Model } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { SnapshotRepository } from '../src/data/snapshot.repository';
import { campaignSnapshotModel } from '../src/data/snapshot.schema';
import type { CampaignSnapshot } from '../src/domain/records';
import { campaignView } from '../../../test/support/view-fixtures';

let mongo: Connection;
let model: Model<CampaignSnapshot>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `payout_seed_test_${Date.now()}`);
  model = campaignSnapshotModel(mongo);
  await model.init();
});

afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

it('inserts a copy once for a burst of seeds of it, and not again after', async () => {
  const inserts: unknown[] = [];
  const insertOne = model.collection.insertOne.bind(model.collection);
  const insertMany = model.collection.insertMany.bind(model.collection);
  jest.spyOn(model.collection, 'insertOne').mockImplementation((doc, ...rest) => {
    inserts.push(doc);
    return insertOne(doc, ...rest);
  });
  jest.spyOn(model.collection, 'insertMany').mockImplementation((docs, ...rest) => {
    inserts.push(...docs);
    return insertMany(docs, ...rest);
  });
  const repo = new SnapshotRepository(model);
  const view = campaignView();
  const record: CampaignSnapshot = {
    _id: view.id,
    merchant_id: 'm1',
    view,
    updated_at: new Date(view.updated_at),
  };

  await Promise.all(Array.from({ length: 20 }, () => repo.seed({ ...record })));
  await repo.seed({ ...record });

  expect(await model.countDocuments({ _id: record._id })).toBe(1);
  expect(inserts).toHaveLength(1);
  expect(repo.hasSeeded('m1', record._id)).toBe(true);
});
