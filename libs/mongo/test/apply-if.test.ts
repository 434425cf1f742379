/**
 * `TenantRepository.applyIf` over the real MongoDB-protocol server: conditional updates sent
 * together share one bulk write, yet each learns on its own whether its condition held, queues
 * its events only then, and never inserts anything.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { buildEvent } from '@aff/contracts';
import { TenantRepository, connectMongo, type TenantRecord } from '../src';

interface TicketRecord extends TenantRecord {
  state: string;
  seen: number;
  code: string;
}

let mongo: Connection;
let model: Model<TicketRecord>;
let repo: TenantRepository<TicketRecord>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `apply_if_test_${Date.now()}`);
  const schema = new Schema<TicketRecord>(
    {
      _id: String,
      merchant_id: String,
      state: String,
      seen: Number,
      code: String,
      created_at: Date,
      pending_events: Schema.Types.Mixed,
    },
    { versionKey: false },
  );
  // A second unique index: a failed condition's insert attempt may collide on it too.
  schema.index({ merchant_id: 1, code: 1 }, { unique: true });
  model = mongo.model<TicketRecord>('Ticket', schema);
  await model.init();
  repo = new TenantRepository(model);
});

afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

async function ticket(merchantId: string, state: string): Promise<string> {
  const id = randomUUID();
  await repo.insert({
    _id: id,
    merchant_id: merchantId,
    state,
    seen: 0,
    code: `code-${id}`,
    created_at: new Date(),
  });
  return id;
}

function event(merchantId: string) {
  return buildEvent('affiliate.updated', merchantId, { id: randomUUID() } as never);
}

it('applies the updates whose condition holds and tells the others, in one batch', async () => {
  const merchantId = `m-${randomUUID()}`;
  const [open1, closed, open2] = [
    await ticket(merchantId, 'open'),
    await ticket(merchantId, 'closed'),
    await ticket(merchantId, 'open'),
  ];
  const close = { $set: { state: 'closed' }, $inc: { seen: 1 } };
  const outcomes = await Promise.all([
    repo.applyIf(merchantId, open1, { state: 'open' }, close, [event(merchantId)]),
    repo.applyIf(merchantId, closed, { state: 'open' }, close, [event(merchantId)]),
    repo.applyIf(merchantId, open2, { state: 'open' }, close),
    // Another merchant's id never matches this merchant's record.
    repo.applyIf(`other-${merchantId}`, open2, {}, close),
  ]);
  expect(outcomes[0]).toHaveLength(1);
  expect(outcomes[1]).toBeNull();
  expect(outcomes[2]).toEqual([]);
  expect(outcomes[3]).toBeNull();

  const stored = await model.find({ merchant_id: merchantId }).lean<TicketRecord[]>().exec();
  const byId = new Map(stored.map((doc) => [doc._id, doc]));
  expect(stored).toHaveLength(3);
  expect(byId.get(open1)).toMatchObject({ state: 'closed', seen: 1 });
  expect(byId.get(open1)!.pending_events).toHaveLength(1);
  expect(byId.get(closed)).toMatchObject({ state: 'closed', seen: 0, pending_events: [] });
  expect(byId.get(open2)).toMatchObject({ state: 'closed', seen: 1 });
  // The failed conditions inserted nothing, for this merchant or the other.
  await expect(model.countDocuments({ _id: { $in: [open1, closed, open2] } })).resolves.toBe(3);
});

it('lets exactly one of two racing updates with the same condition win', async () => {
  const merchantId = `m-${randomUUID()}`;
  const ids = await Promise.all(Array.from({ length: 20 }, () => ticket(merchantId, 'open')));
  const close = { $set: { state: 'closed' }, $inc: { seen: 1 } };
  const outcomes = await Promise.all(
    ids.flatMap((id) => [
      repo.applyIf(merchantId, id, { state: 'open' }, close),
      repo.applyIf(merchantId, id, { state: 'open' }, close),
    ]),
  );
  const wins = outcomes.filter((outcome) => outcome !== null).length;
  expect(wins).toBe(ids.length);
  const stored = await model
    .find({ _id: { $in: ids } })
    .lean<TicketRecord[]>()
    .exec();
  expect(stored.map((doc) => doc.seen)).toEqual(ids.map(() => 1));
});
