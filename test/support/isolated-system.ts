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
  stop(): Promise<void>;
}

export async function startIsolatedSystem(
  opts: {
    env?: NodeJS.ProcessEnv;
    redisUrl?: string;
    /** A NATS of the test's own (a cluster, say) instead of a server started for this system. */
    natsUrl?: string;
    replicas?: Parameters<typeof startSystem>[0]['replicas'];
  } = {},
): Promise<IsolatedSystem> {
  const nats = opts.natsUrl
    ? { natsUrl: opts.natsUrl, stop: async () => undefined }
    : await startInfra({ containers: false, ownNats: true });
  const infra = {
    mongoUrl: process.env.MONGO_URL!,
    redisUrl: opts.redisUrl ?? process.env.REDIS_URL!,
    natsUrl: nats.natsUrl,
  };
  const logDir = path.join(
    process.env.AFF_TEST_LOG_DIR ?? '.local/test-logs',
    `isolated-${Date.now()}`,
  );
  fs.mkdirSync(logDir, { recursive: true });
  let system: RunningSystem;
  try {
    system = await startSystem({
      infra,
      env: opts.env,
      logDir,
      replicas: opts.replicas,
      // Its own service databases: the shared system's outbox sweeps would otherwise relay this
      // system's pending events to the shared NATS (and clear them), so they never arrive here.
      databasePrefix: `iso${Date.now().toString(36)}_`,
    });
  } catch (error) {
    // A system that did not start is not returned, so nobody else would stop its NATS.
    await nats.stop();
    throw error;
  }
  return {
    infra,
    system,
    async stop() {
      await system.stop();
      await nats.stop();
    },
  };
}

/** A URL where nothing listens: a Redis that is down. */
export async function deadRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}
