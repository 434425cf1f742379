import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongo } from 'mongoose';
import { startInfra, type Infra } from '../src';

const ENV_URLS = ['MONGO_URL', 'NATS_URL', 'REDIS_URL'];

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Connects, optionally writes, and resolves with the first chunk the server sends. */
function firstReply(url: string, send?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(url), '127.0.0.1');
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no reply from ${url}`)));
    socket.once('connect', () => send && socket.write(send));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString());
    });
    socket.once('error', reject);
  });
}

function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(portOf(url), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startInfra with local binaries', () => {
  const savedEnv: Record<string, string | undefined> = {};
  const logLines: string[] = [];
  let dataDir: string;
  let infra: Infra | undefined;

  beforeAll(async () => {
    for (const name of ENV_URLS) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
    dataDir = mkdtempSync(join(tmpdir(), 'devstack-test-'));
    infra = await startInfra({ dataDir, containers: false, log: (line) => logLines.push(line) });
    // Generous: on a fresh machine startInfra first builds nats-server and fetches mongo-java-server (~2 min cold).
  }, 15 * 60_000);

  afterAll(async () => {
    await infra?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    for (const name of ENV_URLS) {
      if (savedEnv[name] !== undefined) process.env[name] = savedEnv[name];
    }
  });

  it('hands out loopback URLs from local binaries', () => {
    for (const name of ['mongo', 'nats', 'redis']) {
      expect(logLines).toContainEqual(
        expect.stringMatching(new RegExp(`^devstack: ${name} at .* \\(local `)),
      );
    }
    expect(infra?.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(infra?.natsUrl).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(infra?.mongoUrl).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('redis answers PING', async () => {
    expect(await firstReply(infra!.redisUrl, 'PING\r\n')).toMatch(/^\+PONG/);
  });

  it('nats greets with INFO', async () => {
    const info = await firstReply(infra!.natsUrl);
    expect(info.startsWith('INFO ')).toBe(true);
    expect(info).toContain('"jetstream":true');
  });

  it('mongo answers ping and stores a document', async () => {
    const client = new mongo.MongoClient(infra!.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    try {
      await client.connect();
      const db = client.db('devstack_test');
      expect(await db.command({ ping: 1 })).toMatchObject({ ok: 1 });
      await db.collection('things').insertOne({ name: 'widget', n: 1 });
      expect(await db.collection('things').findOne({ name: 'widget' })).toMatchObject({
        name: 'widget',
        n: 1,
      });
    } finally {
      await client.close();
    }
  }, 30_000);

  it('stop() closes every port and removes the data dirs', async () => {
    const urls = [infra!.redisUrl, infra!.natsUrl, infra!.mongoUrl];
    await infra!.stop();
    infra = undefined;
    for (const url of urls) expect(await accepts(url)).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 30_000);
});
