/**
 * The delivery store over the real MongoDB-protocol server: the unique (event, endpoint) key,
 * subscription matching, fresh deliveries claimed by their fan-out, due look-up, and claims
 * (leases on the delivery) that only one sender wins.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { AttemptRepository } from '../src/data/attempt.repository';
import { attemptModel } from '../src/data/attempt.schema';
import { DeliveryRepository } from '../src/data/delivery.repository';
import { deliveryModel } from '../src/data/delivery.schema';
import { EndpointRepository } from '../src/data/endpoint.repository';
import { endpointModel } from '../src/data/endpoint.schema';
import { ScheduleRepository } from '../src/data/schedule.repository';
import { scheduleModel } from '../src/data/schedule.schema';
import { EndpointDirectory } from '../src/data/endpoint-directory';
import { DeliveryClaims } from '../src/domain/delivery-claims';
import { FanOut } from '../src/domain/fan-out';
import { toDue, type DeliveryRecord } from '../src/domain/records';
import { INTERRUPTED } from '../src/domain/views';

let mongo: Connection;
let deliveries: DeliveryRepository;
let attempts: AttemptRepository;
let claims: DeliveryClaims;
let schedule: ScheduleRepository;
let endpoints: EndpointRepository;
let merchant: string;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `webhook_store_test_${Date.now()}`);
  const models = [
    deliveryModel(mongo),
    endpointModel(mongo),
    attemptModel(mongo),
    scheduleModel(mongo),
  ] as const;
  await Promise.all(models.map((model) => model.init()));
  deliveries = new DeliveryRepository(models[0]);
  endpoints = new EndpointRepository(models[1], { relay: () => undefined });
  attempts = new AttemptRepository(models[2]);
  schedule = new ScheduleRepository(models[3]);
  claims = new DeliveryClaims(deliveries, attempts, schedule);
});
beforeEach(() => {
  merchant = randomUUID();
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

async function addEndpoint(events: string[], enabled = true, createdAt = new Date()) {
  const record = {
    _id: randomUUID(),
    merchant_id: merchant,
    url: 'https://example.com/hook',
    events,
    enabled,
    secret: 'whsec_AAAA',
    created_at: createdAt,
    updated_at: createdAt,
  };
  await endpoints.insert(record);
  return record;
}

function event(type: string, occurredAt = new Date()) {
  return {
    id: randomUUID(),
    type,
    merchant_id: merchant,
    occurred_at: occurredAt.toISOString(),
    data: { id: 'a1', visitors: 2 },
  };
}

describe('fan-out into the delivery store', () => {
  it('creates one delivery per subscribed, enabled endpoint that existed when the event occurred', async () => {
    const all = await addEndpoint(['*']);
    const some = await addEndpoint(['affiliate.created']);
    await addEndpoint(['campaign.created']);
    await addEndpoint(['*'], false);
    const fanOut = new FanOut(new EndpointDirectory(endpoints), deliveries, schedule, 10_000);

    const created = await fanOut.handle(event('affiliate.created'), { traceparent: 'tp' });
    expect(created.map((d) => d.endpoint_id).sort()).toEqual([all._id, some._id].sort());
    // Each is held for its first attempt by this fan-out, and not on the schedule (yet).
    const scheduled = (await schedule.findDue(new Date(), 1000, [])).map((e) => e.id);
    for (const due of created) {
      expect(scheduled).not.toContain(due.id);
      expect(due.held?.token).toEqual(expect.any(String));
      expect(await deliveries.tenant.findById(merchant, due.id)).toMatchObject({
        lease_token: due.held!.token,
        state: 'pending',
      });
      // Nobody else can take it while the lease runs…
      const { held, ...offered } = due;
      expect(await claims.claim(offered, new Date(), 10_000)).toBeNull();
      // …but the fan-out's own sender may renew it (its attempt waited in a lane too long).
      const renewed = await claims.claim(due, new Date(), 10_000);
      expect(renewed?.token).not.toBe(held!.token);
      expect(await attempts.forDeliveries(merchant, [due.id])).toEqual([]);
    }

    const later = await addEndpoint(['*'], true, new Date(Date.now() + 60_000));
    const before = await fanOut.handle(event('affiliate.created'), {});
    expect(before.map((d) => d.endpoint_id)).not.toContain(later._id);
  });

  it('creates nothing twice when the same event comes again, but schedules what a crash cut off', async () => {
    await addEndpoint(['payout.paid']);
    const fanOut = new FanOut(new EndpointDirectory(endpoints), deliveries, schedule, 10_000);
    const paid = event('payout.paid');
    const [fresh] = await fanOut.handle(paid, {});
    const due = toDue({ ...fresh!, _id: fresh!.id, next_attempt_at: new Date(fresh!.slot) });
    // Seen again before its first attempt answered (the process died): it is scheduled.
    expect(await fanOut.handle(paid, {})).toEqual([]);
    expect(await deliveries.tenant.findMany(merchant, { event_id: paid.id })).toHaveLength(1);
    expect(await schedule.findDue(new Date(), 1000, [])).toContainEqual(due);

    await schedule.remove(due.id);
    await fanOut.handle(paid, {});
    expect(await schedule.findDue(new Date(), 1000, [])).toContainEqual(due);
  });

  it('ignores internal event types', async () => {
    await addEndpoint(['*']);
    expect(
      await new FanOut(new EndpointDirectory(endpoints), deliveries, schedule, 10_000).handle(
        event('charge.attributed'),
        {},
      ),
    ).toEqual([]);
  });
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
    await deliveries.insertOnce(record);
    if (record.next_attempt_at) await schedule.set(toDue(record));
    return record;
  }
  const result = { response_status: 500, duration_ms: 3, error: null };
  const later = (ms: number) => new Date(Date.now() + ms);
  const dueOf = toDue;
  const stored = async (id: string) => (await deliveries.tenant.findById(merchant, id))!;

  it('go to exactly one of many senders racing for a due delivery', async () => {
    for (let round = 0; round < 5; round++) {
      const due = dueOf(await pendingDelivery());
      const now = new Date();
      const won = await Promise.all(
        Array.from({ length: 8 }, () => claims.claim(due, now, 10_000)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  });

  it('are refused for slots that are not due yet, or over', async () => {
    const notDue = await pendingDelivery({ next_attempt_at: later(60_000) });
    expect(await claims.claim(dueOf(notDue), new Date(), 10_000)).toBeNull();
    const now = new Date();
    const delivered = await pendingDelivery({ state: 'delivered', next_attempt_at: now });
    expect(await claims.claim(dueOf(delivered), new Date(), 10_000)).toBeNull();
    // A stale offer: the delivery has moved on to a later slot since.
    const moved = await pendingDelivery();
    const stale = { ...dueOf(moved), slot: dueOf(moved).slot - 1000 };
    expect(await claims.claim(stale, new Date(), 10_000)).toBeNull();
    expect(await attempts.forDeliveries(merchant, [moved._id])).toEqual([]);
  });

  it('of a sender that died are taken over once the lease ran out, by one taker', async () => {
    const d = await pendingDelivery();
    const dead = await claims.claim(dueOf(d), new Date(), 1);
    expect(dead).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = new Date();
    const takers = await Promise.all(
      Array.from({ length: 4 }, () => claims.claim(dueOf(d), now, 10_000)),
    );
    const winners = takers.filter(Boolean);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.token).not.toBe(dead!.token);
    // The lost attempt is in the log at once, as interrupted.
    const [lost] = await attempts.forDeliveries(merchant, [d._id]);
    expect(lost).toMatchObject({ _id: dead!.token, error: INTERRUPTED, response_status: null });
    const delivered = { state: 'delivered' as const, next_attempt_at: null, first_attempt_at: now };
    // The sender presumed dead answers late: only the holder of the slot decides.
    expect(await claims.finish(dead!, result, delivered)).toBe(false);
    expect((await stored(d._id)).state).toBe('pending');
    expect(await claims.finish(winners[0]!, result, delivered)).toBe(true);
    expect((await stored(d._id)).state).toBe('delivered');
    expect(await attempts.forDeliveries(merchant, [d._id])).toHaveLength(2);
  });

  it('store the next slot for the holder, and only log an attempt a redeliver overtook', async () => {
    const d = await pendingDelivery();
    const first = (await claims.claim(dueOf(d), new Date(), 10_000))!;
    expect(first.delivery).toMatchObject({ _id: d._id, object_json: '{}' });
    expect(first.slot).toEqual(d.next_attempt_at);
    const next = later(30_000);
    const pending = {
      state: 'pending' as const,
      next_attempt_at: next,
      first_attempt_at: first.startedAt,
    };
    expect(await claims.finish(first, result, pending)).toBe(true);
    expect(await stored(d._id)).toMatchObject({ state: 'pending', next_attempt_at: next });
    expect(await claims.claim(dueOf(d), new Date(), 10_000)).toBeNull();

    const requeued = (await deliveries.requeue(merchant, d._id, new Date()))!;
    const second = (await claims.claim(dueOf(requeued), new Date(), 10_000))!;
    const again = (await deliveries.requeue(merchant, d._id, new Date()))!;
    expect(again).toMatchObject({ state: 'pending', first_attempt_at: null });
    const delivered = {
      state: 'delivered' as const,
      next_attempt_at: null,
      first_attempt_at: new Date(),
    };
    expect(await claims.finish(second, { ...result, response_status: 200 }, delivered)).toBe(false);
    expect((await stored(d._id)).state).toBe('pending');

    const log = await attempts.forDeliveries(merchant, [d._id]);
    expect(log.map((a) => a.response_status)).toEqual([500, 200]);
    expect(log.every((a) => a.finished_at !== null)).toBe(true);
    expect(await deliveries.requeue(randomUUID(), d._id, new Date())).toBeNull();
  });

  it('that finish together share one write, and each learns whether its outcome applied', async () => {
    const claimed = [];
    for (let i = 0; i < 4; i++) {
      const d = await pendingDelivery();
      claimed.push((await claims.claim(dueOf(d), new Date(), 10_000))!);
    }
    // The last one is overtaken by a redeliver before it answers.
    const overtaken = claimed[3]!;
    await deliveries.requeue(merchant, overtaken.delivery._id, new Date());
    const delivered = {
      state: 'delivered' as const,
      next_attempt_at: null,
      first_attempt_at: new Date(),
    };
    const ok = { ...result, response_status: 200 };
    // Started in one turn of the event loop, so their outcomes go in one bulk write.
    const applied = await Promise.all(claimed.map((c) => claims.finish(c, ok, delivered)));
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
      fresh.push((await claims.claim(dueOf(d), new Date(), 10_000))!);
    }
    expect(await Promise.all(fresh.map((c) => claims.finish(c, ok, delivered)))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('keep the schedule: the next slot while pending, nothing once delivered', async () => {
    const d = await pendingDelivery();
    const first = (await claims.claim(dueOf(d), new Date(), 10_000))!;
    const next = later(30_000);
    await claims.finish(first, result, {
      state: 'pending',
      next_attempt_at: next,
      first_attempt_at: new Date(),
    });
    const scheduled = (await schedule.findDue(later(60_000), 1000, [])).find((e) => e.id === d._id);
    expect(scheduled?.slot).toBe(next.getTime());

    await deliveries.requeue(merchant, d._id, new Date());
    const requeued = (await stored(d._id))!;
    const second = (await claims.claim(dueOf(requeued), new Date(), 10_000))!;
    await claims.finish(second, result, {
      state: 'delivered',
      next_attempt_at: null,
      first_attempt_at: new Date(),
    });
    expect((await schedule.findDue(later(60_000), 1000, [])).map((e) => e.id)).not.toContain(d._id);
  });

  it('put right a schedule entry that no longer matches its delivery', async () => {
    const moved = await pendingDelivery({ next_attempt_at: later(60_000) });
    const stale = { ...dueOf(moved), slot: Date.now() - 1000 };
    await schedule.set(stale);
    expect(await claims.claim(stale, new Date(), 10_000)).toBeNull();
    const entry = (await schedule.findDue(later(120_000), 1000, [])).find(
      (e) => e.id === moved._id,
    );
    expect(entry).toEqual(dueOf(moved));

    const finished = await pendingDelivery({ state: 'failed' });
    await schedule.set(dueOf(finished));
    expect(await claims.claim(dueOf(finished), new Date(), 10_000)).toBeNull();
    expect((await schedule.findDue(later(120_000), 1000, [])).map((e) => e.id)).not.toContain(
      finished._id,
    );
  });

  it('find due deliveries in the schedule, skipping endpoints whose lanes are full', async () => {
    const a = await pendingDelivery();
    const b = await pendingDelivery();
    const found = await schedule.findDue(new Date(), 1000, [a.endpoint_id]);
    expect(found).toContainEqual(dueOf(b));
    expect(found.map((d) => d.id)).not.toContain(a._id);
  });
});
