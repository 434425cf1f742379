/**
 * The fan-out and a delivery's first write over the real MongoDB-protocol server: a new delivery
 * is made in memory under an id derived from (event, endpoint) and stored by its first answer
 * in one write; an event seen again sends only what was never stored; two senders of one event
 * keep one document; the hand-off's deadline stores what has not answered yet.
 */
import { randomUUID } from 'node:crypto';
import { EndpointDirectory } from '../src/data/endpoint-directory';
import { FanOut, deliveryIdOf } from '../src/domain/fan-out';
import type { DueDelivery } from '../src/domain/ports';
import { toDue } from '../src/domain/records';
import { openStores, type Stores } from './support/delivery-store';

let s: Stores;
let merchant: string;
beforeAll(async () => {
  s = await openStores('webhook_fan_out_test');
});
afterAll(() => s.close());
beforeEach(() => {
  merchant = randomUUID();
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
  await s.endpoints.insert(record);
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

const fanOut = () =>
  new FanOut(new EndpointDirectory(s.endpoints), s.deliveries, s.schedule, 10_000);
const ok = { response_status: 200, duration_ms: 3, error: null };
const failed = { response_status: 500, duration_ms: 3, error: null };
const delivered = (due: DueDelivery) => ({
  state: 'delivered' as const,
  next_attempt_at: null,
  first_attempt_at: due.held!.startedAt,
});
const retryAt = (due: DueDelivery, next: Date) => ({
  state: 'pending' as const,
  next_attempt_at: next,
  first_attempt_at: due.held!.startedAt,
});
const stored = (id: string) => s.deliveries.findById(merchant, id);
/** One subscribed endpoint, and the fresh delivery of one new event for it. */
async function oneFresh() {
  await addEndpoint(['affiliate.created']);
  const created = event('affiliate.created');
  const [due] = await fanOut().handle(created, {});
  return { created, due: due! };
}

describe('the fan-out', () => {
  it('makes one delivery per subscribed, enabled endpoint that existed when the event occurred, in memory only', async () => {
    const all = await addEndpoint(['*']);
    const some = await addEndpoint(['affiliate.created']);
    await addEndpoint(['campaign.created']);
    await addEndpoint(['*'], false);
    await addEndpoint(['*'], true, new Date(Date.now() + 60_000));
    const created = event('affiliate.created');

    const made = await fanOut().handle(created, { traceparent: 'tp' });
    expect(made.map((d) => d.endpoint_id).sort()).toEqual([all._id, some._id].sort());
    for (const due of made) {
      // The id every sender of this event computes: its webhook-id.
      expect(due.id).toBe(deliveryIdOf(created.id, due.endpoint_id));
      expect(due.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(due.held).toMatchObject({ stored: false, scheduled: false });
      expect(due.held!.delivery.trace).toEqual({ traceparent: 'tp' });
      expect(await stored(due.id)).toBeNull();
      expect(await s.scheduledIds()).not.toContain(due.id);
    }
  });

  it('ignores internal event types', async () => {
    await addEndpoint(['*']);
    expect(await fanOut().handle(event('charge.attributed'), {})).toEqual([]);
  });

  it('makes the delivery again, under the same id, when the event comes back unstored', async () => {
    const { created, due } = await oneFresh();
    // The process died before the first answer was stored: nothing is, so it is sent again.
    const [again] = await fanOut().handle(created, {});
    expect(again!.id).toBe(due.id);
    expect(again!.held!.token).not.toBe(due.held!.token);
  });
});

describe('the first answer', () => {
  it('stores a delivered delivery with its attempt in one document, off the schedule', async () => {
    const { created, due } = await oneFresh();
    expect(await s.claims.finish(due.held!, ok, delivered(due))).toBe(true);
    expect(await stored(due.id)).toMatchObject({
      state: 'delivered',
      next_attempt_at: null,
      first_attempt_at: due.held!.startedAt,
      lease_token: null,
      embedded_log: true,
      attempts: [{ _id: due.held!.token, request_id: due.held!.requestId, response_status: 200 }],
    });
    expect(await s.models.delivery.countDocuments({ event_id: created.id })).toBe(1);
    expect(await s.scheduledIds()).not.toContain(due.id);
    // Seen again (a crash after the write, before the ack): nothing is sent again.
    expect(await fanOut().handle(created, {})).toEqual([]);
    expect(await s.scheduledIds()).not.toContain(due.id);
  });

  it('stores a failed first attempt pending at its next slot, on the schedule', async () => {
    const { created, due } = await oneFresh();
    const next = new Date(Date.now() + 30_000);
    expect(await s.claims.finish(due.held!, failed, retryAt(due, next))).toBe(true);
    expect(await stored(due.id)).toMatchObject({ state: 'pending', next_attempt_at: next });
    const entry = toDue({ ...due.held!.delivery, next_attempt_at: next });
    expect(await s.schedule.findDue(new Date(next.getTime() + 1), 10_000, [])).toContainEqual(
      entry,
    );
    // A crash between the write and its schedule entry: the event comes back and puts it right.
    await s.schedule.remove(due.id);
    expect(await fanOut().handle(created, {})).toEqual([]);
    expect(await s.schedule.findDue(new Date(next.getTime() + 1), 10_000, [])).toContainEqual(
      entry,
    );
  });
});

describe('two senders of one event', () => {
  it('keep one document: the first answer stored decides, the other attempt is only logged', async () => {
    const { created, due: first } = await oneFresh();
    const [second] = await fanOut().handle(created, {});
    const next = new Date(Date.now() + 30_000);
    expect(await s.claims.finish(first.held!, failed, retryAt(first, next))).toBe(true);
    expect(await s.claims.finish(second!.held!, ok, delivered(second!))).toBe(false);
    const doc = (await stored(first.id))!;
    expect(doc).toMatchObject({ state: 'pending', next_attempt_at: next });
    expect(doc.attempts!.map((a) => [a._id, a.response_status])).toEqual([
      [first.held!.token, 500],
      [second!.held!.token, 200],
    ]);
    // A retried log write adds no second line.
    await s.deliveries.logAttempt(merchant, first.id, doc.attempts![1]!);
    expect((await stored(first.id))!.attempts).toHaveLength(2);
  });
});

describe("the hand-off's deadline", () => {
  it('stores a delivery still sending with its claim, which its answer then settles', async () => {
    const { due } = await oneFresh();
    await s.claims.park(due.held!, true);
    expect(await stored(due.id)).toMatchObject({
      state: 'pending',
      lease_token: due.held!.token,
      attempts: [],
    });
    expect(await s.scheduledIds()).toContain(due.id);
    // Nobody else takes it while the claim runs.
    expect(await s.claims.claim(toDue(due.held!.delivery), new Date(), 10_000)).toBeNull();
    expect(await s.claims.finish(due.held!, ok, delivered(due))).toBe(true);
    expect(await stored(due.id)).toMatchObject({
      state: 'delivered',
      attempts: [{ _id: due.held!.token }],
    });
    expect(await s.scheduledIds()).not.toContain(due.id);
  });

  it('lets its own sender renew the claim when its attempt waited long in a lane', async () => {
    const { due } = await oneFresh();
    await s.claims.park(due.held!, true);
    const renewed = await s.claims.claim(due, new Date(), 10_000);
    expect(renewed?.token).not.toBe(due.held!.token);
    expect((await stored(due.id))!.attempts).toEqual([]);
  });

  it('stores what never started due at once, for the poller, with no lost attempt to log', async () => {
    const { due } = await oneFresh();
    await s.claims.park(due.held!, false);
    expect(await stored(due.id)).toMatchObject({ state: 'pending', lease_token: null });
    const entry = (await s.schedule.findDue(new Date(), 10_000, [])).find((e) => e.id === due.id);
    expect(entry).toEqual(toDue(due.held!.delivery));
    expect(await s.claims.claim(entry!, new Date(), 10_000)).not.toBeNull();
    expect((await stored(due.id))!.attempts).toEqual([]);
  });

  it('changes nothing when the answer stored it first, but makes sure a pending one is scheduled', async () => {
    const { due } = await oneFresh();
    await s.claims.finish(due.held!, ok, delivered(due));
    await s.claims.park(due.held!, true);
    expect(await stored(due.id)).toMatchObject({ state: 'delivered', lease_token: null });
    expect(await s.scheduledIds()).not.toContain(due.id);

    const other = await oneFresh();
    const next = new Date(Date.now() + 30_000);
    await s.claims.finish(other.due.held!, failed, retryAt(other.due, next));
    await s.schedule.remove(other.due.id);
    await s.claims.park(other.due.held!, true);
    expect(await s.scheduledIds()).toContain(other.due.id);
  });
});
