/**
 * A second copy of the system for fault tests: its own NATS server (so no other replica answers
 * its requests) and service databases, the shared MongoDB server and Redis unless overridden. Processes can be killed and
 * restarted without disturbing the other tests.
 */
import { freePort, startInfra, startSystem, type Infra, type RunningSystem } from '@aff/devstack';
import fs from 'node:fs';
import path from 'node:path';

export interface IsolatedSystem {
  infra: Pick<Infra, 'mongoUrl' | 'natsUrl' | 'redisUrl'>;
  system: RunningSystem;
  /** Service `x` keeps its data in database `${databasePrefix}x` (the gateway excepted). */
  databasePrefix: string;
  stop(): Promise<void>;
}

/** Starts not yet stopped, so the end of a test file can stop what its own hooks did not. */
const unstopped = new Set<Promise<IsolatedSystem>>();

/**
 * Waits for every isolated system this test file started (or is still starting: a `beforeAll`
 * that timed out leaves its start running) and stops those still up. Run after each test file
 * (test/support/stop-leftover-systems.ts), so a system never outlives its file and takes CPU
 * from the files after it.
 */
export async function stopLeftoverIsolatedSystems(): Promise<void> {
  const starts = [...unstopped];
  unstopped.clear();
  await Promise.all(
    starts.map((start) =>
      start.then(
        (iso) => iso.stop(),
        () => undefined, // it failed to start, and cleaned up after itself
      ),
    ),
  );
}

/** What test/support/stop-leftover-systems.ts calls, set only in files that start systems. */
export interface LeftoverSweep {
  stopLeftoverIsolatedSystems?: () => Promise<void>;
}
(globalThis as LeftoverSweep).stopLeftoverIsolatedSystems = stopLeftoverIsolatedSystems;

export function startIsolatedSystem(
  opts: Parameters<typeof startOnce>[0] = {},
): Promise<IsolatedSystem> {
  const start = startOnce(opts);
  unstopped.add(start);
  return start;
}

async function startOnce(
  opts: {
    env?: NodeJS.ProcessEnv;
    redisUrl?: string;
    /** A NATS of the test's own (a cluster, say) instead of a server started for this system. */
    natsUrl?: string;
    replicas?: Parameters<typeof startSystem>[0]['replicas'];
    /**
     * A MongoDB-protocol server of its own with the H2 backend, the one `npm start` runs (in a
     * temporary dir), instead of the shared test server (memory backend).
     */
    h2Mongo?: boolean;
  } = {},
): Promise<IsolatedSystem> {
  const own = opts.h2Mongo
    ? await startInfra({ containers: false, ownNats: true, ownMongo: true, mongoBackend: 'h2' })
    : undefined;
  const nats = opts.natsUrl
    ? { natsUrl: opts.natsUrl, stop: async () => own?.stop() }
    : (own ?? (await startInfra({ containers: false, ownNats: true })));
  const infra = {
    mongoUrl: own?.mongoUrl ?? process.env.MONGO_URL!,
    redisUrl: opts.redisUrl ?? process.env.REDIS_URL!,
    natsUrl: nats.natsUrl,
  };
  const logDir = path.join(
    process.env.AFF_TEST_LOG_DIR ?? '.local/test-logs',
    `isolated-${Date.now()}`,
  );
  fs.mkdirSync(logDir, { recursive: true });
  let system: RunningSystem;
  // Its own service databases: the shared system's outbox sweeps would otherwise relay this
  // system's pending events to the shared NATS (and clear them), so they never arrive here.
  const databasePrefix = `iso${Date.now().toString(36)}_`;
  try {
    system = await startSystem({
      infra,
      env: opts.env,
      logDir,
      replicas: opts.replicas,
      databasePrefix,
    });
  } catch (error) {
    // A system that did not start is not returned, so nobody else would stop its NATS.
    await nats.stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    infra,
    system,
    databasePrefix,
    // Once: the file's own hook and the leftover sweep may both call it.
    stop() {
      stopping ??= (async () => {
        await system.stop();
        await nats.stop();
      })();
      return stopping;
    },
  };
}

/** A URL where nothing listens: a Redis that is down. */
export async function deadRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}
