/**
 * Starts a service from its definition in two steps. `prepareService` connects MongoDB and
 * NATS, ensures every stream (our consumers must exist before the producers first publish) and
 * the work queues the service declares, and initialises its models. `build` then wires the
 * object graph from that, starting nothing, and `startWiring` starts what `build` returned, in
 * the one order every service shares, and serves health. `stop` undoes it in reverse.
 */
import { atMost, startHealthServer } from '@aff/api';
import type { ServiceName } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  KeyedWorkQueue,
  OutboxRelay,
  connectNats,
  ensureStreams,
  natsReachable,
  serveRpc,
} from '@aff/messaging';
import { MongoPendingEventStore, connectMongo, mongoReachable } from '@aff/mongo';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import {
  allModels,
  type KernelConfig,
  type Models,
  type ServiceDefinition,
  type ServiceDeps,
  type ServiceEntries,
} from './definition';
import { startIntervalJobs } from './interval-jobs';

export interface RunningService<W> {
  healthPort: number | undefined;
  /** The wired object graph, for tests that drive it. */
  wiring: W;
  stop(): Promise<void>;
}

/** What `build` is given, and what the kernel keeps to itself. */
export interface PreparedService<C, M extends Models> {
  deps: ServiceDeps<C, M>;
  mongo: Connection;
  /** Started with the rest, after `build`. */
  relay: OutboxRelay;
}

type Config<Schema extends z.ZodObject> = z.infer<Schema> & KernelConfig;

export async function startService<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(
  definition: ServiceDefinition<S, Schema, M, W>,
  config: Config<Schema>,
  log: Logger,
): Promise<RunningService<W>> {
  const prepared = await prepareService(definition, config, log);
  const wiring = await definition.build(prepared.deps);
  return startWiring(definition, prepared, wiring);
}

export async function prepareService<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(
  definition: ServiceDefinition<S, Schema, M, W>,
  config: Config<Schema>,
  log: Logger,
): Promise<PreparedService<Config<Schema>, M>> {
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB, {
    requestTimeoutMs: config.RPC_TIMEOUT_MS,
  });
  const nc = await connectNats(config.NATS_URL, definition.name, log);
  const placement = { replicas: config.NATS_STREAM_REPLICAS };
  await ensureStreams(nc, undefined, placement);
  for (const queue of definition.workQueues ?? [])
    await KeyedWorkQueue.ensureStream(nc, queue, placement);

  const models = definition.models(mongo);
  await Promise.all(allModels(models).map((model) => model.init()));
  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore(definition.outbox(models)),
    log,
  );
  return { mongo, relay, deps: { config, log, nc, models, relay } };
}

export async function startWiring<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(
  definition: ServiceDefinition<S, Schema, M, W>,
  { mongo, relay, deps }: PreparedService<Config<Schema>, M>,
  wiring: W,
): Promise<RunningService<W>> {
  const { name } = definition;
  const { config, log, nc } = deps;
  // Subscribe before loading: an event published while the snapshot is read would otherwise be
  // in neither (the read models apply what arrives meanwhile again on top of their snapshot).
  const followers = wiring.follow?.() ?? [];
  await wiring.load?.();
  const consumers = (await Promise.all((wiring.consumers ?? []).map((start) => start()))).flat();
  for (const worker of wiring.workers ?? []) worker.start?.();
  const subscription = serveRpc(nc, name, wiring.rpc, log);

  const health = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port, ...wiring.readyFields }, `${name} service ready`);
  // Sweeps start once ready: the first reads every outbox collection (a scan on the local
  // server, as long as the history) and would otherwise compete with the start. Writes made
  // before are relayed all the same (relaying needs no start).
  relay.start({ intervalMs: config.OUTBOX_SWEEP_MS });
  // Likewise timed jobs: a start-up pass (commission's stats backfill) reads whole collections.
  const jobs = startIntervalJobs(wiring.intervals ?? [], log);

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
