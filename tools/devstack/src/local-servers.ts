import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary } from './binaries';
import { freePort } from './free-port';
import { spawnManaged } from './managed-process';
import { RingBuffer } from './ring-buffer';
import type { ServerName, StartedServer } from './types';
import { waitForPort } from './wait-for-port';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;
const OUTPUT_LINES = 50;
const LINES_IN_ERROR = 10;
/** Retries cover losing the race for a free port to another process between probe and bind. */
const START_ATTEMPTS = 3;

interface LocalCommand {
  binary: string;
  args: (port: number, dir: string) => string[];
  url: (port: number) => string;
}

/**
 * How the local MongoDB-protocol server keeps its data: `memory` (tests: fastest, gone with the
 * process) or `h2` (a file under the server's data dir; `npm start` and the bench).
 */
export type MongoBackend = 'memory' | 'h2';

function mongoCommand(backend: MongoBackend): LocalCommand | undefined {
  const mongod = findBinary('mongod');
  if (mongod) {
    return {
      binary: mongod,
      args: (port, dir) => ['--bind_ip', HOST, '--port', String(port), '--dbpath', dir],
      url: (port) => `mongodb://${HOST}:${port}/`,
    };
  }
  const javaServer = findBinary('mongo-java-server');
  if (!javaServer) return undefined;
  return {
    binary: javaServer,
    args: (port, dir) => [
      '--host',
      HOST,
      '--port',
      String(port),
      '--backend',
      backend,
      ...(backend === 'h2' ? ['--file', join(dir, 'mongo.h2.mv')] : []),
    ],
    url: (port) => `mongodb://${HOST}:${port}/`,
  };
}

export interface LocalServerOptions {
  mongoBackend?: MongoBackend;
  /**
   * The data dir is kept across runs (`npm start`): Redis writes its append-only file there, as
   * idempotency keys live in Redis for a day and a client retrying after a restart must get the
   * first answer back, not a second write. Otherwise Redis keeps nothing on disk.
   */
  persistent?: boolean;
}

/** The command that would start `name` locally, or undefined when its binary is not installed. */
export function localCommand(
  name: ServerName,
  mongoBackend: MongoBackend = 'memory',
  persistent = false,
): LocalCommand | undefined {
  switch (name) {
    case 'mongo':
      return mongoCommand(mongoBackend);
    case 'nats': {
      const binary = findBinary('nats-server');
      return binary
        ? {
            binary,
            args: (port, dir) => ['-js', '-a', HOST, '-p', String(port), '-sd', dir],
            url: (port) => `nats://${HOST}:${port}`,
          }
        : undefined;
    }
    case 'redis': {
      const binary = findBinary('redis-server');
      const args = (port: number, dir: string) => [
        '--port',
        String(port),
        '--bind',
        HOST,
        '--save',
        '',
        '--appendonly',
        persistent ? 'yes' : 'no',
        '--dir',
        dir,
      ];
      return binary ? { binary, args, url: (port) => `redis://${HOST}:${port}` } : undefined;
    }
  }
}

function reportFailure(
  name: string,
  reason: string,
  output: RingBuffer<string>,
  log: (line: string) => void,
): Error {
  const lines = output.toArray();
  log(`devstack: ${name} ${reason}; its last ${lines.length} output lines:`);
  for (const line of lines) log(`  ${line}`);
  const tail = lines.slice(-LINES_IN_ERROR).join('\n');
  return new Error(`${name} ${reason}${tail ? `; last output:\n${tail}` : ' (no output)'}`);
}

type Attempt = { started: StartedServer } | { exitCode: number | null; output: RingBuffer<string> };

async function attempt(
  name: ServerName,
  cmd: LocalCommand,
  dir: string,
  log: (line: string) => void,
): Promise<Attempt> {
  const port = await freePort();
  const output = new RingBuffer<string>(OUTPUT_LINES);
  const proc = spawnManaged(name, cmd.binary, cmd.args(port, dir), {
    onLine: (line) => output.push(line),
  });
  const giveUp = new AbortController();
  const ready = waitForPort(port, HOST, READY_TIMEOUT_MS, giveUp.signal).then(
    () => 'ready' as const,
    () => 'timeout' as const,
  );
  const outcome = await Promise.race([ready, proc.exited]);
  giveUp.abort();

  if (outcome === 'timeout') {
    await proc.stop('SIGKILL');
    throw reportFailure(
      name,
      `did not accept connections on ${HOST}:${port} within ${READY_TIMEOUT_MS} ms`,
      output,
      log,
    );
  }
  if (outcome !== 'ready') return { exitCode: outcome, output };

  let stopping = false;
  void proc.exited.then((code) => {
    if (!stopping) reportFailure(name, `exited unexpectedly with code ${code}`, output, log);
  });
  const stop = (): Promise<void> => {
    stopping = true;
    return proc.stop();
  };
  return { started: { url: cmd.url(port), source: `local ${cmd.binary}`, stop } };
}

/**
 * Starts `name` from a local binary on a free port, with its data under `dataRoot`: in
 * `<dataRoot>/<name>` when persistent (the same store every run), else a fresh dir per attempt.
 */
export async function startLocalServer(
  name: ServerName,
  dataRoot: string,
  log: (line: string) => void,
  opts: LocalServerOptions = {},
): Promise<StartedServer> {
  const cmd = localCommand(name, opts.mongoBackend, opts.persistent);
  if (!cmd) throw new Error(`no local binary for ${name}; run deploy/local/install-infra.sh`);
  for (let i = 1; ; i++) {
    // A throwaway store gets a fresh dir per attempt, so a half-initialised one cannot fail the
    // retry; a kept store is the one to open, whatever the attempt.
    const dir = join(dataRoot, opts.persistent ? name : `${name}-${i}`);
    mkdirSync(dir, { recursive: true });
    const result = await attempt(name, cmd, dir, log);
    if ('started' in result) return result.started;
    if (i >= START_ATTEMPTS) {
      throw reportFailure(
        name,
        `exited with code ${result.exitCode} before accepting connections`,
        result.output,
        log,
      );
    }
  }
}
