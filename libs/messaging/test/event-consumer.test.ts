/** The JetStream consumer and publisher over a real NATS server. */
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { buildEvent, type EventEnvelope } from '@aff/contracts';
import { AppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import {
  EventPublisher,
  connectNats,
  encodeJson,
  ensureStreams,
  retryDelayMs,
  startConsumer,
  type NatsConnection,
  type RunningConsumer,
} from '../src';

const log = createLogger('consumer-test', 'silent');
let nc: NatsConnection;
let consumer: RunningConsumer | undefined;

beforeAll(async () => {
  nc = await connectNats(process.env.NATS_URL!, 'consumer-test', log);
  await ensureStreams(nc, ['affiliate']);
});
afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
});
afterAll(async () => {
  await nc.close();
});

function affiliateEvent(merchantId: string) {
  return buildEvent('affiliate.updated', merchantId, { id: randomUUID() } as never);
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a consumer that hands this test's events (by merchant) to `handle` and acks the rest. */
async function consume(merchantId: string, handle: (event: EventEnvelope) => Promise<void>) {
  consumer = await startConsumer(nc, {
    stream: 'EVT_AFFILIATE',
    durable: `test-${randomUUID()}`,
    filterSubjects: ['evt.affiliate.updated'],
    log,
    handle: async (event) => {
      if (event.merchant_id === merchantId) await handle(event);
    },
  });
}

it('stores an event published twice with the same id only once', async () => {
  const merchantId = randomUUID();
  const event = affiliateEvent(merchantId);
  const publisher = new EventPublisher(nc);
  await publisher.publish(event);
  await publisher.publish(event);
  const seen: string[] = [];
  await consume(merchantId, async (e) => {
    seen.push(e.id);
  });
  await waitFor(() => seen.length >= 1);
  await new Promise((r) => setTimeout(r, 300));
  expect(seen).toEqual([event.id]);
});

it('redelivers after a retryable failure and acks once handled', async () => {
  const merchantId = randomUUID();
  let attempts = 0;
  await consume(merchantId, async () => {
    attempts++;
    if (attempts === 1) throw new Error('database briefly unavailable');
  });
  await new EventPublisher(nc).publish(affiliateEvent(merchantId));
  await waitFor(() => attempts >= 2);
  await new Promise((r) => setTimeout(r, 1200));
  expect(attempts).toBe(2);
});

it('terminates a poison message and a permanently rejected event without retrying', async () => {
  const merchantId = randomUUID();
  let attempts = 0;
  const handled: string[] = [];
  await consume(merchantId, async (event) => {
    attempts++;
    handled.push(event.id);
    throw new AppError('unprocessable', 'nonsense');
  });
  await jetstream(nc).publish('evt.affiliate.updated', encodeJson({ not: 'an envelope' }));
  const good = affiliateEvent(merchantId);
  await new EventPublisher(nc).publish(good);
  await waitFor(() => attempts >= 1);
  await new Promise((r) => setTimeout(r, 1500));
  expect(handled).toEqual([good.id]);
});

it('acks unread the events of a merchant it is told to skip, by the publisher header', async () => {
  const [skipped, kept] = [randomUUID(), randomUUID()];
  const durable = `test-${randomUUID()}`;
  const handled: string[] = [];
  consumer = await startConsumer(nc, {
    stream: 'EVT_AFFILIATE',
    durable,
    filterSubjects: ['evt.affiliate.updated'],
    log,
    skipMerchant: (merchantId) => merchantId === skipped,
    handle: async (event) => {
      if (event.merchant_id === skipped || event.merchant_id === kept) handled.push(event.id);
    },
  });
  const publisher = new EventPublisher(nc);
  const unread = affiliateEvent(skipped);
  await publisher.publish(unread);
  // Published without the header (an older publisher): read, never skipped.
  const headerless = affiliateEvent(skipped);
  await jetstream(nc).publish('evt.affiliate.updated', encodeJson(headerless));
  const read = affiliateEvent(kept);
  await publisher.publish(read);
  await waitFor(() => handled.length >= 2);
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + 10_000;
  let info = await jsm.consumers.info('EVT_AFFILIATE', durable);
  while ((info.num_pending > 0 || info.num_ack_pending > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    info = await jsm.consumers.info('EVT_AFFILIATE', durable);
  }
  expect(handled).toEqual([headerless.id, read.id]);
  // The skipped one was acknowledged: nothing left pending or awaiting its ack.
  expect([info.num_pending, info.num_ack_pending]).toEqual([0, 0]);
});

it('backs off retries exponentially up to a minute', () => {
  expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([500, 1000, 2000, 4000]);
  expect(retryDelayMs(30)).toBe(60_000);
});
