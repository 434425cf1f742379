/**
 * Starts a service from its definition: connects MongoDB and NATS, ensures every stream (our
 * consumers must exist before the producers first publish), initialises the models, starts the
 * outbox relay, wires the service with its `build`, starts what it returned, and serves health.
 * `stop` undoes it in the one order every service shares.
 */
import { atMost, startHealthServer } from '@aff/api';
import type { ServiceName } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  OutboxRelay,
  connectNats,
  ensureStreams,
  natsReachable,
  serveRpc,
} from '@aff/messaging';
import { MongoPendingEventStore, connectMongo, mongoReachable } from '@aff/mongo';
import type { z } from 'zod';
import {
  allModels,
  type KernelConfig,
  type Models,
  type ServiceDefinition,
  type ServiceEntries,
} from './definition';
import { startIntervalJobs } from './interval-jobs';

export interface RunningService<W> {
  healthPort: number | undefined;
  /** The wired object graph, for tests that drive it. */
  wiring: W;
  stop(): Promise<void>;
}

export async function startService<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(
  definition: ServiceDefinition<S, Schema, M, W>,
  config: z.infer<Schema> & KernelConfig,
  log: Logger,
): Promise<RunningService<W>> {
  const { name } = definition;
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, name, log);
  await ensureStreams(nc, undefined, { replicas: config.NATS_STREAM_REPLICAS });

  const models = definition.models(mongo);
  await Promise.all(allModels(models).map((model) => model.init()));
  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore(definition.outbox(models)),
    log,
  );
  relay.start(config.OUTBOX_SWEEP_MS);

  const wiring = await definition.build({ config, log, mongo, nc, models, relay });
  // Subscribe before loading: an event published while the snapshot is read would otherwise be
  // in neither (the read models apply what arrives meanwhile again on top of their snapshot).
  const followers = wiring.follow?.() ?? [];
  await wiring.load?.();
  const consumers = (await Promise.all((wiring.consumers ?? []).map((start) => start()))).flat();
  for (const worker of wiring.workers ?? []) worker.start?.();
  const jobs = startIntervalJobs(wiring.intervals ?? [], log);
  const subscription = serveRpc(nc, name, wiring.rpc, log);

  const health = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port, ...wiring.readyFields }, `${name} service ready`);

  return {
    healthPort: health?.port,
    wiring,
    async stop() {
      subscription.unsubscribe();
      for (const follower of followers) follower.unsubscribe();
      // Bounded steps: a server that is gone must not stall shutdown past its deadline.
      await atMost(jobs.stop(), 1_000);
      await atMost(Promise.all(consumers.map((consumer) => consumer.stop())), 1_500);
      for (const worker of wiring.workers ?? []) await atMost(worker.stop(), 1_000);
      await atMost(relay.stop(), 1_000);
      wiring.close?.();
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      await health?.close();
      await atMost(mongo.close(), 500);
    },
  };
}
