/**
 * Over the real MongoDB-protocol server, through the service's `referral_counts.updated`
 * handler: the kept top-affiliates list (affiliate_top) is what the sorted read of the
 * merchant's affiliates gives, after random counter batches with repeats, late (lower) figures,
 * batches racing each other, other merchants' ids and changes of state; history from before the
 * list is taken in by the first view; a process that died between the counters and the list
 * leaves a list its message's repeat repairs, and a view meanwhile still shows the sorted read.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { buildEvent, type ReferralCount } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import { TenantRepository, connectMongo } from '@aff/mongo';
import { referralCountsConsumer } from '../src/consumers/referral-counts.consumer';
import { AffiliateRepository } from '../src/data/affiliate.repository';
import { affiliateModel, type AffiliateDocument } from '../src/data/affiliate.schema';
import { TopAffiliates, affiliateTopModel, type TopDoc } from '../src/data/top-affiliates';
import type { CountedStore } from '../src/domain/ports';
import { ReferralCounts } from '../src/domain/referral-counts';
import { TOP_KEPT } from '../src/domain/top-list';
import { affiliateRecord } from './support/affiliate-record';

const log = createLogger('test', 'silent');
let mongo: Connection;
let records: Model<AffiliateDocument>;
let kept: Model<TopDoc>;
let top: TopAffiliates;
/** The service's handler of tracking's counts, as its consumer calls it. */
let handle: (counts: ReferralCount[], merchantId: string) => Promise<void>;

/** The same list written by a process that dies right after raising the counters. */
class DiesBeforeTheList extends TopAffiliates {
  override async raised(): Promise<void> {
    throw new Error('process died');
  }
}
let dying: typeof handle;

function handlerOver(list: TopAffiliates): typeof handle {
  const affiliates = new AffiliateRepository(
    new TenantRepository(records, { relay: { relay: () => undefined } }),
    undefined,
    list,
  );
  const none: CountedStore = { raiseCounts: async () => undefined };
  const consumer = referralCountsConsumer(
    new ReferralCounts({ link: none, affiliate: affiliates, coupon: none }),
  );
  return (counts, merchantId) =>
    consumer.handle(buildEvent('referral_counts.updated', merchantId, { counts }), log, {
      count: 1,
    });
}

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `affiliate_top_test_${Date.now()}`);
  records = affiliateModel(mongo);
  kept = affiliateTopModel(mongo);
  await records.init();
  top = new TopAffiliates(kept, records);
  handle = handlerOver(top);
  dying = handlerOver(new DiesBeforeTheList(kept, records));
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

/** `n` affiliates of a merchant; every third shares its creation time with the one before. */
async function affiliatesOf(merchantId: string, n: number, conversions = () => 0) {
  const start = Date.now() - 1_000_000;
  const docs = Array.from({ length: n }, (_, i) => {
    const at = new Date(start + (i - (i % 3 === 2 ? 1 : 0)) * 1000);
    return {
      ...affiliateRecord(merchantId, at, { conversions: conversions() }),
      pending_events: [],
    };
  });
  await records.collection.insertMany(docs as never[]);
  return docs.map((d) => d._id);
}

const row = (id: string, conversions: number): ReferralCount => ({
  target: 'affiliate',
  id,
  visitors: conversions * 3,
  leads: conversions * 2,
  conversions,
});

/** What the overview showed before the list: the merchant's affiliates, sorted, first `n`. */
async function sortedRead(merchantId: string, n: number) {
  const docs = await records
    .find({ merchant_id: merchantId })
    .sort({ conversions: -1, created_at: -1, _id: -1 })
    .limit(n)
    .lean();
  return docs.map((d) => ({ id: d._id, conversions: d.conversions }));
}

const keptDoc = (merchantId: string) => kept.collection.findOne({ _id: merchantId as never });

/** The list holds exactly the sorted read's converting affiliates (up to TOP_KEPT). */
async function expectListIsTheSortedRead(merchantId: string) {
  const doc = await keptDoc(merchantId);
  const expected = (await sortedRead(merchantId, TOP_KEPT)).filter((e) => e.conversions > 0);
  expect(doc).toMatchObject({ built: true });
  expect(
    (doc!.top as { id: string; conversions: number }[]).map(({ id, conversions }) => ({
      id,
      conversions,
    })),
  ).toEqual(expected);
}

async function expectViewIsTheSortedRead(merchantId: string, n: number) {
  const shown = (await top.top(merchantId, n)).map((r) => r._id);
  expect(shown).toEqual((await sortedRead(merchantId, n)).map((e) => e.id));
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

it('keeps the sorted read after random batches, repeats, late figures and races, per merchant', async () => {
  const [ma, mb] = [`m_${randomUUID()}`, `m_${randomUUID()}`];
  // History from before the list: a few affiliates already counted.
  const ids = {
    [ma]: await affiliatesOf(ma, 30, () => (Math.random() < 0.3 ? pick([1, 2, 3]) : 0)),
    [mb]: await affiliatesOf(mb, 25),
  };
  expect(await keptDoc(ma)).toBeNull();
  await expectViewIsTheSortedRead(ma, 5);
  await expectViewIsTheSortedRead(mb, 5);
  await expectListIsTheSortedRead(ma);
  await expectListIsTheSortedRead(mb);

  // What tracking has counted per affiliate, and every batch it sent (to send some again).
  const truth = new Map<string, number>();
  for (const d of await records.find({ merchant_id: { $in: [ma, mb] } }).lean())
    truth.set(d._id, d.conversions);
  const sent: [ReferralCount[], string][] = [];
  for (let step = 0; step < 120; step += 1) {
    const m = pick([ma, mb]);
    const batch: ReferralCount[] = [];
    for (let i = 0; i < 1 + Math.floor(Math.random() * 4); i += 1) {
      const id = pick(ids[m]!);
      const now = truth.get(id)! + pick([0, 1, 1, 2, 3]);
      truth.set(id, now);
      // Sometimes a figure older than the one applied (a late event): it lowers nothing.
      batch.push(row(id, Math.random() < 0.15 ? Math.max(0, now - 2) : now));
    }
    // Another merchant's affiliate named in this merchant's batch changes neither.
    if (step % 17 === 0) batch.push(row(pick(ids[m === ma ? mb : ma]!), 1_000));
    sent.push([batch, m]);
    const again = step % 5 === 0 ? [pick(sent)] : [];
    // Batches racing each other: conditional writes, retried on a conflict.
    await Promise.all([[batch, m] as const, ...again].map(([b, mm]) => handle(b, mm)));
    // A change of state hides no affiliate from the overview (the sorted read has no filter).
    if (step % 11 === 0)
      await records.updateOne({ _id: pick(ids[m]!) }, { $set: { state: 'disabled' } });
    if (step % 10 === 9) {
      // The writers' list first (a view that falls back to the sorted read would repair it).
      await expectListIsTheSortedRead(ma);
      await expectListIsTheSortedRead(mb);
      await expectViewIsTheSortedRead(ma, 5);
      await expectViewIsTheSortedRead(mb, 5);
    }
  }
  await Promise.all(sent.slice(0, 30).map(([b, m]) => handle(b, m)));
  for (const m of [ma, mb]) {
    await expectListIsTheSortedRead(m);
    await expectViewIsTheSortedRead(m, 5);
    await expectViewIsTheSortedRead(m, TOP_KEPT);
    const doc = await keptDoc(m);
    expect((doc!.top as { id: string }[]).every((e) => ids[m]!.includes(e.id))).toBe(true);
    // Every repeat is merged already: sending them all again writes nothing.
    await Promise.all(sent.filter(([, mm]) => mm === m).map(([b]) => handle(b, m)));
    expect((await keptDoc(m))!.v).toBe(doc!.v);
  }
});

it('loses no batch when many of one merchant are merged at once, by two replicas', async () => {
  const m = `m_${randomUUID()}`;
  const ids = await affiliatesOf(m, 40);
  await expectViewIsTheSortedRead(m, 5);
  const replicas = [handle, handlerOver(new TopAffiliates(kept, records))];
  for (let round = 1; round <= 3; round += 1)
    await Promise.all(ids.map((id, i) => replicas[i % 2]!([row(id, round * (1 + (i % 7)))], m)));
  await expectListIsTheSortedRead(m);
});

it('a batch that cannot change the list reads and writes nothing', async () => {
  const m = `m_${randomUUID()}`;
  const ids = await affiliatesOf(m, 30);
  await expectViewIsTheSortedRead(m, 5);
  // 30 affiliates with one conversion: the 20 newest are kept, 10 tie with the 20th and are out.
  await handle(
    ids.map((id) => row(id, 1)),
    m,
  );
  await expectListIsTheSortedRead(m);
  const v = (await keptDoc(m))!.v;
  // The affiliates' read comes first (the list's read and write only after it).
  const reads = jest.spyOn(records, 'find');
  try {
    // Visits of every affiliate (their conversions unchanged), and of affiliates without one.
    const more = await affiliatesOf(m, 3);
    await handle(
      [...ids.map((id) => ({ ...row(id, 1), visitors: 50 })), ...more.map((id) => row(id, 0))],
      m,
    );
    expect(reads).not.toHaveBeenCalled();
  } finally {
    reads.mockRestore();
  }
  expect((await keptDoc(m))!.v).toBe(v);
  // One more conversion for a left-out affiliate: it enters.
  const listed = ((await keptDoc(m))!.top as { id: string }[]).map((e) => e.id);
  const left = ids.find((id) => !listed.includes(id))!;
  await handle([row(left, 2)], m);
  expect((await keptDoc(m))!.top[0]).toMatchObject({ id: left, conversions: 2 });
  await expectListIsTheSortedRead(m);
});

it('answers a view from the list: one read of it and the affiliates it names', async () => {
  const m = `m_${randomUUID()}`;
  const ids = await affiliatesOf(m, 8);
  await handle(
    ids.map((id, i) => row(id, 10 - i)),
    m,
  );
  await expectViewIsTheSortedRead(m, 5);
  // Swap the first two in the document (each still with its affiliate's true count): a view that
  // sorted the affiliates would not show this order; a view of the list does.
  const doc = (await keptDoc(m))!;
  const [first, second, ...rest] = doc.top as unknown[];
  await kept.collection.updateOne({ _id: m as never }, { $set: { top: [second, first, ...rest] } });
  expect((await top.top(m, 5)).map((r) => r._id)).toEqual([ids[1], ids[0], ...ids.slice(2, 5)]);
});

it('builds the list from the history when a writer made it first; a short list is followed by the newest', async () => {
  const m = `m_${randomUUID()}`;
  const old = await affiliatesOf(m, 6, () => 0);
  await records.updateMany({ _id: { $in: old.slice(0, 2) } }, { $set: { conversions: 9 } });
  // A batch before any view: the writer keeps what it merged, not built (the history is not in).
  await handle([row(old[4]!, 1)], m);
  expect(await keptDoc(m)).toMatchObject({ built: false, top: [{ id: old[4], conversions: 1 }] });
  // Three affiliates converted: a view of five shows them, then the two newest without any.
  await expectViewIsTheSortedRead(m, 5);
  await expectListIsTheSortedRead(m);
  await handle([row(old[5]!, 2), row(old[3]!, 2)], m);
  await expectListIsTheSortedRead(m);
  await expectViewIsTheSortedRead(m, 5);
  expect((await top.top(m, 5)).map((r) => r._id)).toEqual([old[1], old[0], old[5], old[3], old[4]]);
  // A list shorter than asked holds every converting affiliate: the newest without a conversion
  // follow it. Its first two swapped, the view shows the list's order, then the newest.
  const m2 = `m_${randomUUID()}`;
  const few = await affiliatesOf(m2, 6);
  await expectViewIsTheSortedRead(m2, 5);
  await handle([row(few[0]!, 3), row(few[1]!, 2)], m2);
  await expectListIsTheSortedRead(m2);
  const [first, second] = (await keptDoc(m2))!.top as unknown[];
  await kept.collection.updateOne({ _id: m2 as never }, { $set: { top: [second, first] } });
  const newest = (await sortedRead(m2, 5)).slice(2);
  expect(newest.map((e) => e.conversions)).toEqual([0, 0, 0]);
  expect((await top.top(m2, 5)).map((r) => r._id)).toEqual([
    few[1],
    few[0],
    ...newest.map((e) => e.id),
  ]);
});

it('a process that died between the counters and the list: the repeat repairs it, once', async () => {
  const m = `m_${randomUUID()}`;
  const ids = await affiliatesOf(m, 30);
  await expectViewIsTheSortedRead(m, 5);
  await handle(
    ids.map((id, i) => row(id, 1 + (i % 25))),
    m,
  );
  await expectListIsTheSortedRead(m);
  const before = (await keptDoc(m))!;
  const kept20 = (before.top as { id: string }[]).map((e) => e.id);
  const listed = kept20[3]!;
  const unlisted = ids.find((id) => !kept20.includes(id))!;
  // The counters are raised, then the process dies: the list is behind, the message unacked.
  const batch = [row(listed, 100), row(unlisted, 99)];
  await expect(dying(batch, m)).rejects.toThrow('process died');
  expect(await records.findById(unlisted).lean()).toMatchObject({ conversions: 99 });
  expect((await keptDoc(m))!.v).toBe(before.v);
  // The message comes again: the counters are as they were, the list takes both in.
  await handle(batch, m);
  await expectListIsTheSortedRead(m);
  expect((await keptDoc(m))!.top.slice(0, 2)).toMatchObject([
    { id: listed, conversions: 100 },
    { id: unlisted, conversions: 99 },
  ]);
  const after = (await keptDoc(m))!.v;
  expect(after).toBe(before.v + 1);
  await handle(batch, m);
  expect((await keptDoc(m))!.v).toBe(after);
});

it('a view while the list is behind a named affiliate shows the sorted read and repairs the list', async () => {
  const m = `m_${randomUUID()}`;
  const ids = await affiliatesOf(m, 10);
  await expectViewIsTheSortedRead(m, 5);
  await handle(
    ids.map((id, i) => row(id, 20 - i)),
    m,
  );
  // The fifth rises to the top; its writer dies before the list.
  await expect(dying([row(ids[4]!, 50)], m)).rejects.toThrow('process died');
  expect((await keptDoc(m))!.top[0]).toMatchObject({ id: ids[0], conversions: 20 });
  // The list would show ids[0] first; the view sees ids[4] counted past the list.
  expect((await top.top(m, 5)).map((r) => r._id)).toEqual([ids[4], ...ids.slice(0, 4)]);
  await expectListIsTheSortedRead(m);
});
