/**
 * The in-document outbox over a real MongoDB-protocol server and NATS: an event written with
 * its record but never relayed (the process died) is published by the sweep, exactly once.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { buildEvent, type EventEnvelope } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import {
  EventPublisher,
  OutboxRelay,
  connectNats,
  ensureStreams,
  type NatsConnection,
} from '@aff/messaging';
import { jetstream, DeliverPolicy } from '@nats-io/jetstream';
import { MongoPendingEventStore, TenantRepository, connectMongo, type TenantRecord } from '../src';

interface ThingRecord extends TenantRecord {
  name: string;
}

const log = createLogger('outbox-test', 'silent');
let mongo: Connection;
let nc: NatsConnection;
let repo: TenantRepository<ThingRecord>;
let relay: OutboxRelay;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, 'outbox_test');
  nc = await connectNats(process.env.NATS_URL!, 'outbox-test', log);
  await ensureStreams(nc, ['affiliate']);
  const model = mongo.model<ThingRecord>(
    'Thing',
    new Schema<ThingRecord>(
      {
        _id: String,
        merchant_id: String,
        name: String,
        created_at: Date,
        pending_events: Schema.Types.Mixed,
      },
      { versionKey: false },
    ),
  );
  // Indexes built before the first write, as the service kernel does at start: on the local
  // server an insert racing a new collection's index build fails ("Unknown error: null").
  await model.init();
  repo = new TenantRepository(model);
  relay = new OutboxRelay(new EventPublisher(nc), new MongoPendingEventStore([model]), log);
});
afterAll(async () => {
  await nc.close();
  await mongo.close();
});

async function eventsInStream(merchantId: string): Promise<EventEnvelope[]> {
  const consumer = await jetstream(nc).consumers.get('EVT_AFFILIATE', {
    filter_subjects: ['evt.affiliate.updated'],
    deliver_policy: DeliverPolicy.All,
  });
  const found: EventEnvelope[] = [];
  const pending = (await consumer.info(true)).num_pending;
  if (pending > 0) {
    for await (const msg of await consumer.fetch({ max_messages: pending, expires: 2000 })) {
      const event = msg.json<EventEnvelope>();
      if (event.merchant_id === merchantId) found.push(event);
      if (msg.info.pending === 0) break;
    }
  }
  await consumer.delete().catch(() => undefined);
  return found;
}

it('publishes an event left behind by a crash on the next sweep, once, and clears it', async () => {
  const merchantId = randomUUID();
  const id = randomUUID();
  const event = buildEvent('affiliate.updated', merchantId, { id } as never);
  // The write succeeds; the process "dies" before relaying (we never call relay.relay).
  await repo.insert({ _id: id, merchant_id: merchantId, name: 'x', created_at: new Date() }, [
    event,
  ]);
  expect((await repo.findById(merchantId, id))?.pending_events).toHaveLength(1);
  expect(await eventsInStream(merchantId)).toEqual([]);

  expect(await relay.sweep(0)).toBe(1);
  expect((await repo.findById(merchantId, id))?.pending_events).toEqual([]);
  expect(await relay.sweep(0)).toBe(0);
  const published = await eventsInStream(merchantId);
  expect(published.map((e) => e.id)).toEqual([event.id]);
});

it('relays right after a write and keeps later events queued by updates', async () => {
  const merchantId = randomUUID();
  const id = randomUUID();
  const first = buildEvent('affiliate.updated', merchantId, { id, n: 1 } as never);
  const created = await repo.insert(
    { _id: id, merchant_id: merchantId, name: 'a', created_at: new Date() },
    [first],
  );
  relay.relay(created.pending);
  await relay.flush();
  const second = buildEvent('affiliate.updated', merchantId, { id, n: 2 } as never);
  const updated = await repo.update(merchantId, id, { $set: { name: 'b' } }, [second]);
  expect(updated?.record.pending_events.map((p) => p.id)).toEqual([second.id]);
  relay.relay(updated!.pending);
  await relay.flush();
  expect((await repo.findById(merchantId, id))?.pending_events).toEqual([]);
  expect((await eventsInStream(merchantId)).map((e) => e.id)).toEqual([first.id, second.id]);
});

it('clears every event of one write, leaving a later one queued, after relaying them together', async () => {
  const merchantId = randomUUID();
  const id = randomUUID();
  const events = [1, 2, 3].map((n) =>
    buildEvent('affiliate.updated', merchantId, { id, n } as never),
  );
  const created = await repo.insert(
    { _id: id, merchant_id: merchantId, name: 'a', created_at: new Date() },
    events,
  );
  const later = buildEvent('affiliate.updated', merchantId, { id, n: 4 } as never);
  await repo.update(merchantId, id, { $set: { name: 'b' } }, [later]);
  // The three events of the insert are relayed (and removed in one `$pull`); the update's is not.
  relay.relay(created.pending);
  await relay.flush();
  expect((await repo.findById(merchantId, id))?.pending_events.map((p) => p.id)).toEqual([
    later.id,
  ]);
  expect((await eventsInStream(merchantId)).map((e) => e.id)).toEqual(events.map((e) => e.id));
});

it('scopes every read and write to the merchant', async () => {
  const owner = randomUUID();
  const id = randomUUID();
  await repo.insert({ _id: id, merchant_id: owner, name: 'mine', created_at: new Date() });
  const stranger = randomUUID();
  expect(await repo.findById(stranger, id)).toBeNull();
  expect(await repo.update(stranger, id, { $set: { name: 'stolen' } })).toBeNull();
  expect((await repo.page(stranger, {}, 0, 10)).total).toBe(0);
  expect((await repo.findById(owner, id))?.name).toBe('mine');
});

it('given the relay, hands it the events of each write itself, right after the write', async () => {
  const relayedIds: string[] = [];
  const own = new TenantRepository(repo.model, {
    relay: { relay: (pending) => relayedIds.push(...pending.map((p) => p.event.id)) },
  });
  const merchantId = randomUUID();
  const id = randomUUID();
  const created = buildEvent('affiliate.updated', merchantId, { id, n: 1 } as never);
  await own.insert({ _id: id, merchant_id: merchantId, name: 'a', created_at: new Date() }, [
    created,
  ]);
  expect(relayedIds).toEqual([created.id]);
  const changed = buildEvent('affiliate.updated', merchantId, { id, n: 2 } as never);
  await own.updateIf(merchantId, id, { name: 'a' }, { $set: { name: 'b' } }, [changed]);
  const applied = buildEvent('affiliate.updated', merchantId, { id, n: 3 } as never);
  await own.applyIf(merchantId, id, { name: 'b' }, { $set: { name: 'c' } }, [applied]);
  // A write that did not happen relays nothing, nor does one without events.
  const missed = buildEvent('affiliate.updated', merchantId, { id, n: 4 } as never);
  await own.updateIf(merchantId, id, { name: 'nobody' }, { $set: { name: 'd' } }, [missed]);
  await own.update(merchantId, id, { $set: { name: 'e' } });
  expect(relayedIds).toEqual([created.id, changed.id, applied.id]);
});

it("relayAfter: relays the held writes' events only after the step, in write order; none if the step throws", async () => {
  const relayedIds: string[] = [];
  const own = new TenantRepository(repo.model, {
    relay: { relay: (pending) => relayedIds.push(...pending.map((p) => p.event.id)) },
  });
  const merchantId = randomUUID();
  const id = randomUUID();
  const first = buildEvent('affiliate.updated', merchantId, { id, n: 1 } as never);
  const second = buildEvent('affiliate.updated', merchantId, { id, n: 2 } as never);
  const relayedWhenStepRan: string[][] = [];
  const applied = await own.relayAfter(
    async (held) => {
      await held.insert({ _id: id, merchant_id: merchantId, name: 'a', created_at: new Date() }, [
        first,
      ]);
      return held.applyIf(merchantId, id, { name: 'a' }, { $set: { name: 'b' } }, [second]);
    },
    async (result) => {
      expect(result).not.toBeNull();
      relayedWhenStepRan.push([...relayedIds]);
    },
  );
  expect(applied).not.toBeNull();
  expect(relayedWhenStepRan).toEqual([[]]);
  expect(relayedIds).toEqual([first.id, second.id]);

  // A step that fails leaves the stored events to the outbox sweep, as a crash would.
  const third = buildEvent('affiliate.updated', merchantId, { id, n: 3 } as never);
  await expect(
    own.relayAfter(
      (held) => held.update(merchantId, id, { $set: { name: 'c' } }, [third]),
      () => Promise.reject(new Error('settle failed')),
    ),
  ).rejects.toThrow('settle failed');
  expect(relayedIds).toEqual([first.id, second.id]);
  const stored = await repo.findById(merchantId, id);
  expect(stored?.pending_events.map((p) => p.event.id)).toContain(third.id);
  // Writes outside relayAfter still relay at once.
  const fourth = buildEvent('affiliate.updated', merchantId, { id, n: 4 } as never);
  await own.update(merchantId, id, { $set: { name: 'd' } }, [fourth]);
  expect(relayedIds).toEqual([first.id, second.id, fourth.id]);
});

it('retries a failed publish by looking its document up (no sweep), keeping its events in order', async () => {
  const merchantId = randomUUID();
  const id = randomUUID();
  const publisher = new EventPublisher(nc);
  let brokerUp = false;
  const flaky = {
    publish: (...args: Parameters<EventPublisher['publish']>) => {
      if (!brokerUp) return Promise.reject(new Error('broker away'));
      return publisher.publish(...args);
    },
  } as EventPublisher;
  const store = new MongoPendingEventStore([repo.model]);
  const findPending = jest.spyOn(store, 'findPending');
  const own = new OutboxRelay(flaky, store, log);
  const first = buildEvent('affiliate.updated', merchantId, { id, n: 1 } as never);
  const created = await repo.insert(
    { _id: id, merchant_id: merchantId, name: 'a', created_at: new Date() },
    [first],
  );
  own.relay(created.pending);
  await own.flush();
  expect(own.retrying).toBe(1);
  // A later write's event waits for the retry rather than overtake the failed one.
  const second = buildEvent('affiliate.updated', merchantId, { id, n: 2 } as never);
  own.relay((await repo.update(merchantId, id, { $set: { name: 'b' } }, [second]))!.pending);
  await own.flush();
  expect(await eventsInStream(merchantId)).toEqual([]);

  brokerUp = true;
  expect(await own.retry(0)).toBe(2);
  expect(own.retrying).toBe(0);
  expect((await repo.findById(merchantId, id))?.pending_events).toEqual([]);
  expect((await eventsInStream(merchantId)).map((e) => e.id)).toEqual([first.id, second.id]);
  expect(findPending).not.toHaveBeenCalled();
});
