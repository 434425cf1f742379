/**
 * List reads bounded by the time their caller waits, over a real MongoDB-protocol server: the
 * server stops a scan past its `maxTimeMS` with MaxTimeMSExpired (code 50), as mongod does (our
 * local-server launcher honours it: deploy/local/mongo-java-server), and a page and its total,
 * read through a connection given its service's request timeout, both carry that limit less
 * the margin for the reply's way back. Before, the local server ignored `maxTimeMS` and a list
 * read sent none, so a deep page went on scanning long after the gateway's 504.
 */
import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import {
  LIST_TIME_MARGIN_MS,
  NewestList,
  MerchantCounts,
  TenantRepository,
  limitListReads,
  merchantCountsModel,
  tenantKeyIndex,
  type NewestRow,
  type StoredPendingEvent,
} from '../src';

type Row = NewestRow & { state: string; pending_events: StoredPendingEvent[] };
const ROWS = 30_000;
const MERCHANT = 'm_large';

let mongo: Connection;
let model: Model<Row>;
let counts: MerchantCounts;
/** Commands sent on the records' collection. */
const commands: { name: string; maxTimeMS: unknown }[] = [];

beforeAll(async () => {
  // Command monitoring on, to see what each read sends.
  mongo = await mongoose
    .createConnection(process.env.MONGO_URL!, {
      dbName: `list_time_limit_${Date.now()}`,
      monitorCommands: true,
    })
    .asPromise();
  mongo.plugin(tenantKeyIndex);
  mongo.getClient().on('commandStarted', (event) => {
    const command = event.command as { maxTimeMS?: unknown };
    if (event.command[event.commandName] !== 'rows') return;
    commands.push({ name: event.commandName, maxTimeMS: command.maxTimeMS });
  });
  model = mongo.model<Row>(
    'Row',
    new Schema<Row>(
      { _id: String, merchant_id: String, created_at: Date, state: String, pending_events: [] },
      { versionKey: false },
    ),
    'rows',
  );
  await model.init();
  counts = new MerchantCounts(merchantCountsModel(mongo, 'row_counts'), 3);
  const at = Date.now();
  for (let i = 0; i < ROWS; i += 5_000) {
    const batch = Array.from({ length: 5_000 }, (_, j) => ({
      _id: randomUUID(),
      merchant_id: MERCHANT,
      created_at: new Date(at - i - j),
      state: (i + j) % 5 === 0 ? 'lead' : 'visitor',
      pending_events: [],
    }));
    await model.collection.insertMany(batch as never[], { ordered: false });
    await counts.added(batch);
  }
}, 120_000);

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

it('stops a sorted scan and a count past their maxTimeMS with MaxTimeMSExpired', async () => {
  const expired = { code: 50 };
  await expect(
    model
      .find({ merchant_id: MERCHANT, state: 'lead' })
      .sort({ created_at: -1, _id: -1 })
      .skip(2_475)
      .limit(25)
      .maxTimeMS(1)
      .lean()
      .exec(),
  ).rejects.toMatchObject(expired);
  await expect(
    model.countDocuments({ merchant_id: MERCHANT, state: 'lead' }).maxTimeMS(1).exec(),
  ).rejects.toMatchObject(expired);
  // Without a limit the same reads answer.
  const page = await model
    .find({ merchant_id: MERCHANT, state: 'lead' })
    .sort({ created_at: -1, _id: -1 })
    .skip(2_475)
    .limit(25)
    .lean()
    .exec();
  expect(page).toHaveLength(25);
  expect(await model.countDocuments({ merchant_id: MERCHANT, state: 'lead' })).toBe(ROWS / 5);
});

it('sends the request timeout less the margin with a filtered page, its total and a deep page', async () => {
  limitListReads(mongo, 5_000);
  const repo = new TenantRepository(model);
  const newest = new NewestList(model, counts);
  commands.length = 0;
  const filtered = await repo.page(MERCHANT, { state: 'lead' }, 0, 25);
  expect(filtered.total).toBe(ROWS / 5);
  // Past the 3 kept ids: the sorted query.
  expect((await newest.page(MERCHANT, 100, 25)).items).toHaveLength(25);
  const reads = commands.filter((c) => c.name === 'find' || c.name === 'aggregate');
  expect(reads.map((c) => c.name).sort()).toEqual(['aggregate', 'find', 'find']);
  expect(reads.map((c) => c.maxTimeMS)).toEqual(Array(3).fill(5_000 - LIST_TIME_MARGIN_MS));
});

it('answers a sorted read without a limit, and one too deep to keep a page of (whole sort)', async () => {
  // Both hand the server's stream on unread: it once failed them with "stream has already
  // been operated upon or closed" (payout's generate reads its due commissions so).
  const leads = await model
    .find({ merchant_id: MERCHANT, state: 'lead' })
    .sort({ created_at: -1, _id: -1 })
    .lean()
    .exec();
  expect(leads).toHaveLength(ROWS / 5);
  expect(leads[0]!.created_at.getTime()).toBeGreaterThan(leads[1]!.created_at.getTime());
  const deepPage = await model
    .find({ merchant_id: MERCHANT })
    .sort({ _id: 1 })
    .skip(ROWS - 5)
    .lean()
    .exec();
  expect(deepPage).toHaveLength(5);
});
