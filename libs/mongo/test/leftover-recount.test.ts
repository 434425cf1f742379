/**
 * A writer that died between its insert batch and the count of it (issue 33): over a real
 * MongoDB-protocol server, the outbox sweep finds the batch's records by their pending events
 * and counts them (the merchant's count and newest ids) before handing the events over, once;
 * records counted by their writer are not counted again, and events younger than the repair
 * grace are left to their live writer.
 */
import { randomUUID } from 'node:crypto';
import { buildEvent } from '@aff/contracts';
import {
  MongoPendingEventStore,
  NewestList,
  REPAIR_GRACE_MS,
  TenantRepository,
  toStoredPendingEvent,
} from '../src';
import { rowStorePerFile, type Row } from './support/row-store';

const db = rowStorePerFile('leftover_recount_test', 5);
let repo: TenantRepository<Row>;
let store: MongoPendingEventStore;

beforeAll(() => {
  repo = new TenantRepository(db.model, { counts: db.counts });
  store = new MongoPendingEventStore([db.model]);
});

function event(merchantId: string) {
  return buildEvent('affiliate.created', merchantId, { id: randomUUID() } as never);
}

/** A record as a writer that died before counting left it: inserted, events pending. */
function leftover(merchantId: string, ageMs: number, createdAt: Date): Row {
  const stored = toStoredPendingEvent(event(merchantId), {});
  stored.queued_at = new Date(Date.now() - ageMs);
  return {
    _id: randomUUID(),
    merchant_id: merchantId,
    created_at: createdAt,
    pending_events: [stored],
  };
}

test('the sweep counts what a dead writer inserted, once, and lists it', async () => {
  const merchant = randomUUID();
  // Counted by its writer; its events were not relayed either (say, NATS was down).
  const counted = await repo.insert(
    { _id: randomUUID(), merchant_id: merchant, created_at: new Date(Date.now() - 60_000) },
    [event(merchant)],
  );
  await db.model.updateOne(
    { _id: counted.record._id },
    { $set: { 'pending_events.0.queued_at': new Date(Date.now() - 60_000) } },
  );
  const lost = [
    leftover(merchant, 30_000, new Date(Date.now() - 50_000)),
    leftover(merchant, 30_000, new Date(Date.now() - 40_000)),
  ];
  await db.model.collection.insertMany(lost as never[]);
  expect(await db.counts.get(merchant)).toBe(1);

  const found = await store.findPending(new Date(Date.now() - 2_000), 100);
  expect(found.filter((p) => p.event.merchant_id === merchant)).toHaveLength(3);
  expect(await db.counts.get(merchant)).toBe(3);

  // A second sweep (the events were not cleared) counts nothing more.
  await store.findPending(new Date(Date.now() - 2_000), 100);
  expect(await db.counts.get(merchant)).toBe(3);
  const page = await new NewestList(db.model, db.counts).page(merchant, 0, 25);
  expect(page.total).toBe(3);
  expect(page.items.map((r) => r._id)).toEqual([lost[1]!._id, lost[0]!._id, counted.record._id]);
});

test('events younger than the repair grace are left to their writer', async () => {
  const merchant = randomUUID();
  const young = leftover(merchant, REPAIR_GRACE_MS / 2, new Date());
  await db.model.collection.insertOne(young as never);
  const found = await store.findPending(new Date(Date.now() - 2_000), 100);
  expect(found.filter((p) => p.event.merchant_id === merchant)).toHaveLength(0);
  expect(await db.counts.get(merchant)).toBe(0);
});

test('a record older than every kept id, with all kept, is not counted again', async () => {
  const merchant = randomUUID();
  const base = Date.now() - 120_000;
  for (let i = 0; i < 5; i++)
    await repo.insert({
      _id: randomUUID(),
      merchant_id: merchant,
      created_at: new Date(base + i * 1000),
    });
  expect(await db.counts.get(merchant)).toBe(5);
  // Older than the five kept: it may have been counted and pushed out; it is left alone.
  await db.model.collection.insertOne(leftover(merchant, 30_000, new Date(base - 1000)) as never);
  // Newer than the oldest kept and not among them: a dead writer's; counted.
  await db.model.collection.insertOne(leftover(merchant, 30_000, new Date(base + 10_000)) as never);
  await store.findPending(new Date(Date.now() - 2_000), 100);
  expect(await db.counts.get(merchant)).toBe(6);
});

test('a record a repair counted before its writer did is counted once, its batch-mates too', async () => {
  const merchant = randomUUID();
  const row = (offsetMs: number): Row => ({
    _id: randomUUID(),
    merchant_id: merchant,
    created_at: new Date(Date.now() + offsetMs),
    pending_events: [],
  });
  const [first, second, third] = [row(-3_000), row(-2_000), row(-1_000)];
  await db.model.collection.insertMany([first, second, third] as never[]);
  // The writer of `second` and `third` is between its insert and its count; a redelivered
  // write finds `second` stored and counts it meanwhile.
  await db.counts.countIfMissed(second);
  expect(await db.counts.get(merchant)).toBe(1);
  // Counted already: a second repair changes nothing.
  await db.counts.countIfMissed(second);
  expect(await db.counts.get(merchant)).toBe(1);
  // The writer counts its batch: `third` once more, `second` not again.
  await db.counts.added([second, third]);
  expect(await db.counts.get(merchant)).toBe(2);
  await db.counts.added([first]);
  const doc = await db.counts.model.findById(merchant).lean().exec();
  expect(doc?.count).toBe(3);
  expect(doc?.newest?.map((e) => e.id)).toEqual([third._id, second._id, first._id]);
  const page = await new NewestList(db.model, db.counts).page(merchant, 0, 25);
  expect(page.items.map((r) => r._id)).toEqual([third._id, second._id, first._id]);
});
