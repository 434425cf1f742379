/**
 * Component tests start one service in the test process through the kernel (so through its
 * real `build(deps)`, consumers and RPC), on a NATS server of their own: the whole system the
 * global setup started shares the default NATS, and its replicas would compete for our
 * durables and RPC subjects. MongoDB is shared, with a database of the test's own.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { RpcClient, type NatsConnection } from '@aff/messaging';
import { loadConfig } from '@aff/config';
import type { ServiceName } from '@aff/contracts';
import { startInfra } from '@aff/devstack';
import {
  startService,
  type KernelConfig,
  type Models,
  type RunningService,
  type ServiceDefinition,
  type ServiceEntries,
} from '@aff/kernel';
import { createLogger } from '@aff/logging';
import { connectMongo } from '@aff/mongo';
import type { Connection } from 'mongoose';
import type { z } from 'zod';

export interface Component<W> {
  service: RunningService<W>;
  natsUrl: string;
  /** The component's own database on the shared server (to stage what a crash leaves). */
  mongoDb: string;
  /** A client connection to the component's NATS server (publish, request, read streams). */
  nc: NatsConnection;
  stop(): Promise<void>;
}

export async function startComponent<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(
  definition: ServiceDefinition<S, Schema, M, W>,
  env: NodeJS.ProcessEnv = {},
): Promise<Component<W>> {
  const nats = await privateNats();
  const source = {
    NATS_URL: nats.natsUrl,
    MONGO_URL: process.env.MONGO_URL!,
    MONGO_DB: `${definition.name}_component_${randomUUID().slice(0, 8)}`,
    HEALTH_PORT: '-1',
    OUTBOX_SWEEP_MS: '200',
    ...env,
  };
  const config = (
    definition.loadConfig
      ? definition.loadConfig(source)
      : loadConfig(definition.configSchema, source)
  ) as z.infer<Schema> & KernelConfig;
  const log = createLogger(definition.name, process.env.COMPONENT_LOG_LEVEL ?? 'silent');
  const service = await startService(definition, config, log);
  const nc = await connect({ servers: nats.natsUrl });
  return {
    service,
    natsUrl: nats.natsUrl,
    mongoDb: config.MONGO_DB,
    nc,
    async stop() {
      await nc.close();
      await service.stop();
      await nats.stop();
      const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
      await mongo.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
}

/**
 * Runs `work` on a connection of its own to the component's database (to stage what a crash
 * leaves, or read what was written), closed after.
 */
export async function withComponentDb<T>(
  component: Pick<Component<unknown>, 'mongoDb'>,
  work: (mongo: Connection) => Promise<T>,
): Promise<T> {
  const mongo = await connectMongo(process.env.MONGO_URL!, component.mongoDb);
  try {
    return await work(mongo);
  } finally {
    await mongo.close();
  }
}

/** A component test file's service under test, and an RPC client on its NATS server. */
export interface ComponentUnderTest {
  component: Component<unknown>;
  rpc: RpcClient;
}

/**
 * The set-up most component test files share: `definition` started once before the file's tests
 * (as `startComponent` does) and stopped after them. The fields are set by that `beforeAll`, so
 * read them inside tests and hooks, not when the file loads.
 */
export function componentPerFile<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(definition: ServiceDefinition<S, Schema, M, W>): ComponentUnderTest {
  const sut = {} as ComponentUnderTest;
  beforeAll(async () => {
    sut.component = await startComponent(definition);
    sut.rpc = new RpcClient(sut.component.nc, 5000);
  });
  afterAll(async () => {
    await sut.component?.stop();
  });
  return sut;
}

/** A NATS server of our own (MongoDB and Redis stay the shared ones). */
function privateNats() {
  return startInfra({ containers: false, ownNats: true, log: () => undefined });
}
