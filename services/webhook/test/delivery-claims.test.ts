/**
 * Claims on a delivery's slot over the real MongoDB-protocol server: only one sender wins a due
 * slot, a dead sender's is taken over (and its attempt logged as interrupted), outcomes apply
 * only for the holder and are logged in the same write, and the schedule follows.
 */
import { randomUUID } from 'node:crypto';
import { toDue, type DeliveryRecord } from '../src/domain/records';
import { INTERRUPTED } from '../src/domain/views';
import { openStores, type Stores } from './support/delivery-store';

let s: Stores;
let merchant: string;
beforeAll(async () => {
  s = await openStores('webhook_claims_test');
});
afterAll(() => s.close());
beforeEach(() => {
  merchant = randomUUID();
});

describe('claims on a delivery slot', () => {
  async function pendingDelivery(overrides: Partial<DeliveryRecord> = {}) {
    const now = new Date();
    const record = {
      _id: randomUUID(),
      merchant_id: merchant,
      endpoint_id: randomUUID(),
      event_id: randomUUID(),
      event_type: 'affiliate.created',
      event_created_at: now.toISOString(),
      object_json: '{}',
      trace: {},
      state: 'pending' as const,
      first_attempt_at: null,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
      ...overrides,
    };
    await s.deliveries.insertOnce({ ...record, attempts: [], embedded_log: true });
    if (record.next_attempt_at) await s.schedule.set(toDue(record));
    return record;
  }
  const result = { response_status: 500, duration_ms: 3, error: null };
  const later = (ms: number) => new Date(Date.now() + ms);
  const dueOf = toDue;
  const stored = async (id: string) => (await s.deliveries.findById(merchant, id))!;
  const logOf = async (id: string) => (await stored(id)).attempts ?? [];

  it('go to exactly one of many senders racing for a due delivery', async () => {
    for (let round = 0; round < 5; round++) {
      const due = dueOf(await pendingDelivery());
      const now = new Date();
      const won = await Promise.all(
        Array.from({ length: 8 }, () => s.claims.claim(due, now, 10_000)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  });

  it('are refused for slots that are not due yet, or over', async () => {
    const notDue = await pendingDelivery({ next_attempt_at: later(60_000) });
    expect(await s.claims.claim(dueOf(notDue), new Date(), 10_000)).toBeNull();
    const now = new Date();
    const delivered = await pendingDelivery({ state: 'delivered', next_attempt_at: now });
    expect(await s.claims.claim(dueOf(delivered), new Date(), 10_000)).toBeNull();
    // A stale offer: the delivery has moved on to a later slot since.
    const moved = await pendingDelivery();
    const stale = { ...dueOf(moved), slot: dueOf(moved).slot - 1000 };
    expect(await s.claims.claim(stale, new Date(), 10_000)).toBeNull();
    expect(await logOf(moved._id)).toEqual([]);
  });

  it('of a sender that died are taken over once the lease ran out, by one taker', async () => {
    const d = await pendingDelivery();
    const dead = await s.claims.claim(dueOf(d), new Date(), 1);
    expect(dead).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = new Date();
    const takers = await Promise.all(
      Array.from({ length: 4 }, () => s.claims.claim(dueOf(d), now, 10_000)),
    );
    const winners = takers.filter(Boolean);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.token).not.toBe(dead!.token);
    // The lost attempt is in the log at once, as interrupted.
    const [lost] = await logOf(d._id);
    expect(lost).toMatchObject({ _id: dead!.token, error: INTERRUPTED, response_status: null });
    const delivered = { state: 'delivered' as const, next_attempt_at: null, first_attempt_at: now };
    // The sender presumed dead answers late: only the holder of the slot decides.
    expect(await s.claims.finish(dead!, result, delivered)).toBe(false);
    expect((await stored(d._id)).state).toBe('pending');
    expect(await s.claims.finish(winners[0]!, result, delivered)).toBe(true);
    expect((await stored(d._id)).state).toBe('delivered');
    expect(await logOf(d._id)).toHaveLength(2);
  });

  it('store the next slot for the holder, and only log an attempt a redeliver overtook', async () => {
    const d = await pendingDelivery();
    const first = (await s.claims.claim(dueOf(d), new Date(), 10_000))!;
    expect(first.delivery).toMatchObject({ _id: d._id, object_json: '{}' });
    expect(first.slot).toEqual(d.next_attempt_at);
    const next = later(30_000);
    const pending = {
      state: 'pending' as const,
      next_attempt_at: next,
      first_attempt_at: first.startedAt,
    };
    expect(await s.claims.finish(first, result, pending)).toBe(true);
    expect(await stored(d._id)).toMatchObject({ state: 'pending', next_attempt_at: next });
    expect(await s.claims.claim(dueOf(d), new Date(), 10_000)).toBeNull();

    const requeued = (await s.deliveries.requeue(merchant, d._id, new Date()))!;
    const second = (await s.claims.claim(dueOf(requeued), new Date(), 10_000))!;
    const again = (await s.deliveries.requeue(merchant, d._id, new Date()))!;
    expect(again).toMatchObject({ state: 'pending', first_attempt_at: null });
    const delivered = {
      state: 'delivered' as const,
      next_attempt_at: null,
      first_attempt_at: new Date(),
    };
    expect(await s.claims.finish(second, { ...result, response_status: 200 }, delivered)).toBe(
      false,
    );
    expect((await stored(d._id)).state).toBe('pending');

    const log = await logOf(d._id);
    expect(log.map((a) => a.response_status)).toEqual([500, 200]);
    expect(log.every((a) => a.finished_at !== null)).toBe(true);
    expect(await s.deliveries.requeue(randomUUID(), d._id, new Date())).toBeNull();
  });

  it('that finish together share one write, and each learns whether its outcome applied', async () => {
    const claimed = [];
    for (let i = 0; i < 4; i++) {
      const d = await pendingDelivery();
      claimed.push((await s.claims.claim(dueOf(d), new Date(), 10_000))!);
    }
    // The last one is overtaken by a redeliver before it answers.
    const overtaken = claimed[3]!;
    await s.deliveries.requeue(merchant, overtaken.delivery._id, new Date());
    const delivered = {
      state: 'delivered' as const,
      next_attempt_at: null,
      first_attempt_at: new Date(),
    };
    const ok = { ...result, response_status: 200 };
    // Started in one turn of the event loop, so their outcomes go in one bulk write.
    const applied = await Promise.all(claimed.map((c) => s.claims.finish(c, ok, delivered)));
    expect(applied).toEqual([true, true, true, false]);
    for (const c of claimed.slice(0, 3)) {
      expect(await stored(c.delivery._id)).toMatchObject({ state: 'delivered', lease_token: null });
    }
    expect(await stored(overtaken.delivery._id)).toMatchObject({
      state: 'pending',
      first_attempt_at: null,
    });
    // All alike when every one holds its slot.
    const fresh = [];
    for (let i = 0; i < 3; i++) {
      const d = await pendingDelivery();
      fresh.push((await s.claims.claim(dueOf(d), new Date(), 10_000))!);
    }
    expect(await Promise.all(fresh.map((c) => s.claims.finish(c, ok, delivered)))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('keep the schedule: the next slot while pending, nothing once delivered', async () => {
    const d = await pendingDelivery();
    const first = (await s.claims.claim(dueOf(d), new Date(), 10_000))!;
    const next = later(30_000);
    await s.claims.finish(first, result, {
      state: 'pending',
      next_attempt_at: next,
      first_attempt_at: new Date(),
    });
    const scheduled = (await s.schedule.findDue(later(60_000), 1000, [])).find(
      (e) => e.id === d._id,
    );
    expect(scheduled?.slot).toBe(next.getTime());

    await s.deliveries.requeue(merchant, d._id, new Date());
    const requeued = (await stored(d._id))!;
    const second = (await s.claims.claim(dueOf(requeued), new Date(), 10_000))!;
    await s.claims.finish(second, result, {
      state: 'delivered',
      next_attempt_at: null,
      first_attempt_at: new Date(),
    });
    expect((await s.schedule.findDue(later(60_000), 1000, [])).map((e) => e.id)).not.toContain(
      d._id,
    );
  });

  it('put right a schedule entry that no longer matches its delivery', async () => {
    const moved = await pendingDelivery({ next_attempt_at: later(60_000) });
    const stale = { ...dueOf(moved), slot: Date.now() - 1000 };
    await s.schedule.set(stale);
    expect(await s.claims.claim(stale, new Date(), 10_000)).toBeNull();
    const entry = (await s.schedule.findDue(later(120_000), 1000, [])).find(
      (e) => e.id === moved._id,
    );
    expect(entry).toEqual(dueOf(moved));

    const finished = await pendingDelivery({ state: 'failed' });
    await s.schedule.set(dueOf(finished));
    expect(await s.claims.claim(dueOf(finished), new Date(), 10_000)).toBeNull();
    expect((await s.schedule.findDue(later(120_000), 1000, [])).map((e) => e.id)).not.toContain(
      finished._id,
    );
  });

  it('find due deliveries in the schedule, skipping endpoints whose lanes are full', async () => {
    const a = await pendingDelivery();
    const b = await pendingDelivery();
    const found = await s.schedule.findDue(new Date(), 1000, [a.endpoint_id]);
    expect(found).toContainEqual(dueOf(b));
    expect(found.map((d) => d.id)).not.toContain(a._id);
  });
});
