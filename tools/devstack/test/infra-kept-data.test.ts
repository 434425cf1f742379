/**
 * `startInfra({ keepDataIn })`, as `npm start` uses it: what the local servers stored is there
 * again after a stop and a start on new ports (a document, a JetStream stream with its message
 * and durable consumer, a Redis key with its expiry), and stop deletes nothing. Without it,
 * the servers' dirs go on stop (tests and the bench keep throwaway data).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import Redis from 'ioredis';
import { mongo } from 'mongoose';
import { startInfra, type Infra } from '../src';

const ENV_URLS = ['MONGO_URL', 'NATS_URL', 'REDIS_URL'];
const saved: Record<string, string | undefined> = {};
let keepDir: string;
let infra: Infra | undefined;

const start = () =>
  startInfra({ keepDataIn: keepDir, mongoBackend: 'h2', containers: false, log: () => undefined });

async function withMongo<T>(url: string, work: (db: mongo.Db) => Promise<T>): Promise<T> {
  const client = new mongo.MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    return await work(client.db('kept_test'));
  } finally {
    await client.close();
  }
}

async function withNats<T>(
  url: string,
  work: (nc: Awaited<ReturnType<typeof connect>>) => Promise<T>,
) {
  const nc = await connect({ servers: url });
  try {
    return await work(nc);
  } finally {
    await nc.close();
  }
}

async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url);
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

beforeAll(() => {
  for (const name of ENV_URLS) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
  keepDir = join(mkdtempSync(join(tmpdir(), 'kept-data-test-')), 'data');
});

afterAll(async () => {
  await infra?.stop();
  rmSync(join(keepDir, '..'), { recursive: true, force: true });
  for (const name of ENV_URLS) if (saved[name] !== undefined) process.env[name] = saved[name];
});

it('keeps documents, streams, consumers and keys across a stop and a start', async () => {
  infra = await start();
  const first = infra;
  await withMongo(first.mongoUrl, (db) => db.collection('things').insertOne({ name: 'kept' }));
  await withNats(first.natsUrl, async (nc) => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'KEPT', subjects: ['kept.>'] });
    await jsm.consumers.add('KEPT', { durable_name: 'reader', ack_policy: AckPolicy.Explicit });
    await jetstream(nc).publish('kept.one', 'hello');
  });
  await withRedis(first.redisUrl, (redis) => redis.set('idem:1', 'answer', 'PX', 600_000));

  await first.stop();
  infra = undefined;
  expect(readdirSync(keepDir).sort()).toEqual(['mongo', 'nats', 'redis']);

  infra = await start();
  const again = infra;
  expect(await withMongo(again.mongoUrl, (db) => db.collection('things').findOne())).toMatchObject({
    name: 'kept',
  });
  await withNats(again.natsUrl, async (nc) => {
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info('KEPT')).state.messages).toBe(1);
    expect((await jsm.consumers.info('KEPT', 'reader')).num_pending).toBe(1);
  });
  await withRedis(again.redisUrl, async (redis) => {
    expect(await redis.get('idem:1')).toBe('answer');
    expect(await redis.pttl('idem:1')).toBeGreaterThan(500_000);
  });
  await again.stop();
  infra = undefined;
  expect(readdirSync(keepDir).sort()).toEqual(['mongo', 'nats', 'redis']);
}, 180_000);
