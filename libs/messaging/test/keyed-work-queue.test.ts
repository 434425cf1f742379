/**
 * Adding to a keyed work queue on a real NATS server: a publish the stream did not take is tried
 * again under the same key until the queue's deadline, and the stream keeps one copy per key, so
 * a retry after a lost ack stores nothing twice.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { buildEvent } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import { KeyedWorkQueue, connectNats, type NatsConnection } from '../src';

const log = createLogger('keyed-work-queue-test', 'silent');
let nc: NatsConnection;
let jsm: JetStreamManager;
const streams: string[] = [];

beforeAll(async () => {
  nc = await connectNats(process.env.NATS_URL!, 'keyed-work-queue-test', log);
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
  await nc.close();
});

/** A queue of its own (other test files share the server), and the options to open it again. */
function queueOptions(addDeadlineMs?: number, maxRetryingAdds?: number) {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
  const opts = {
    stream: `TEST_KWQ_${suffix}`,
    subjectPrefix: `test.kwq.${suffix}`,
    addDeadlineMs,
    maxRetryingAdds,
  };
  streams.push(opts.stream);
  return opts;
}

function message(key: string) {
  return { ...buildEvent('affiliate.updated', randomUUID(), { id: key } as never), id: key };
}

async function storedCount(stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.messages;
}

it('tries a refused publish again until the stream takes it, and stores it once', async () => {
  const opts = queueOptions(5_000);
  const queue = await KeyedWorkQueue.open(nc, opts);
  // The stream is away (as while a cluster elects its leader): the first publishes fail.
  await jsm.streams.delete(opts.stream);
  const key = randomUUID();
  const adding = queue.add(key, message(key));
  await delay(400);
  await KeyedWorkQueue.open(nc, opts);

  await adding;
  expect((await queue.get(key))?.message.id).toBe(key);
  expect(await storedCount(opts.stream)).toBe(1);
});

it('gives up at its deadline when the stream never takes the message', async () => {
  const opts = queueOptions(600);
  const queue = await KeyedWorkQueue.open(nc, opts);
  await jsm.streams.delete(opts.stream);
  const started = Date.now();
  const key = randomUUID();

  await expect(queue.add(key, message(key))).rejects.toThrow();
  const elapsed = Date.now() - started;
  // It tried for most of its deadline (pauses 100, 250 ms...), and not past it.
  expect(elapsed).toBeGreaterThanOrEqual(300);
  expect(elapsed).toBeLessThan(600 + 1_000);
});

it('lets only so many adds wait to try again; the others fail at once', async () => {
  const opts = queueOptions(5_000, 2);
  const queue = await KeyedWorkQueue.open(nc, opts);
  await jsm.streams.delete(opts.stream);
  const keys = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const started = Date.now();
  const outcomes = keys.map((key) =>
    queue.add(key, message(key)).then(
      () => ({ key, stored: true, ms: Date.now() - started }),
      () => ({ key, stored: false, ms: Date.now() - started }),
    ),
  );
  await delay(400);
  await KeyedWorkQueue.open(nc, opts);
  const settled = await Promise.all(outcomes);

  const refused = settled.filter((o) => !o.stored);
  expect(refused).toHaveLength(2);
  // Refused at their first failure, not after waiting for the stream.
  for (const o of refused) expect(o.ms).toBeLessThan(300);
  expect(await storedCount(opts.stream)).toBe(2);
});

it('keeps one copy when a key that was stored is added again (a retry after a lost ack)', async () => {
  const opts = queueOptions();
  const queue = await KeyedWorkQueue.open(nc, opts);
  const key = randomUUID();
  await queue.add(key, message(key));
  await queue.add(key, message(key));
  const other = randomUUID();
  await queue.add(other, message(other));

  expect(await storedCount(opts.stream)).toBe(2);
});
