/**
 * The chaos test's own servers, each on a fixed port and data dir so it can be stopped and
 * started again in place: NATS restarts with its JetStream store kept, Redis comes back after
 * an outage with its append-only file (so the outage loses no key it had acknowledged).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  findBinary,
  freePort,
  localCommand,
  spawnManaged,
  waitForPort,
  type ManagedProcess,
} from '@aff/devstack';

const HOST = '127.0.0.1';

export interface RestartableServer {
  url: string;
  /** Stops it (SIGKILL by default: an outage, not a shutdown). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port with the same data dir. */
  start(): Promise<void>;
}

async function restartable(
  name: string,
  binary: string,
  args: string[],
  port: number,
  url: string,
): Promise<RestartableServer> {
  let proc: ManagedProcess | undefined;
  const output: string[] = [];
  const start = async () => {
    proc = spawnManaged(name, binary, args, {
      onLine: (line) => {
        output.push(line);
        if (output.length > 30) output.shift();
      },
    });
    await waitForPort(port, HOST, 30_000).catch((error: unknown) => {
      throw new Error(`${name} did not come back: ${String(error)}\n${output.join('\n')}`);
    });
  };
  await start();
  return {
    url,
    start,
    stop: async (signal: NodeJS.Signals = 'SIGKILL') => {
      await proc?.stop(signal, 5_000);
    },
  };
}

export async function startNats(dataDir: string): Promise<RestartableServer> {
  const binary = findBinary('nats-server');
  if (!binary) throw new Error('nats-server missing: run deploy/local/install-infra.sh');
  const port = await freePort();
  const store = path.join(dataDir, 'nats');
  fs.mkdirSync(store, { recursive: true });
  const args = ['-js', '-a', HOST, '-p', String(port), '-sd', store];
  return restartable('nats', binary, args, port, `nats://${HOST}:${port}`);
}

export async function startRedis(dataDir: string): Promise<RestartableServer> {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server missing: run deploy/local/install-infra.sh');
  const port = await freePort();
  const dir = path.join(dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  // Redis writes the append-only file before it answers, so even SIGKILL keeps acknowledged keys.
  const args = ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'yes'];
  return restartable('redis', binary, [...args, '--dir', dir], port, `redis://${HOST}:${port}`);
}

/** MongoDB is never faulted here; the in-memory mongo-java-server is what the tests use. */
export async function startMongo(dataDir: string): Promise<RestartableServer> {
  const cmd = localCommand('mongo');
  if (!cmd) throw new Error('no MongoDB server: run deploy/local/install-infra.sh');
  const port = await freePort();
  const dir = path.join(dataDir, 'mongo');
  fs.mkdirSync(dir, { recursive: true });
  return restartable('mongo', cmd.binary, cmd.args(port, dir), port, cmd.url(port));
}
