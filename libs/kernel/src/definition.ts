/**
 * What a service tells the kernel: its name, configuration, models, work queues and a `build`
 * that wires its object graph from the connections. `build` starts nothing (no consumer, no
 * timer, no subscription, no request, no model of its own): the kernel starts what it returns
 * (test/build-starts-nothing.component.test.ts checks every service).
 */
import type { Connection, Model } from 'mongoose';
import type { z } from 'zod';
import type { ServiceName } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type {
  EventRelay,
  NatsConnection,
  RpcHandlers,
  RunningConsumer,
  Subscription,
  WorkQueueStream,
} from '@aff/messaging';
import type { IntervalJob } from './interval-jobs';

/** The outbox relay's interface lives in @aff/messaging; re-exported for service definitions. */
export type { EventRelay };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyModel = Model<any>;
/** A service's models by name; a group (e.g. a read model's collections) may nest one level. */
export type Models = Record<string, AnyModel | Record<string, AnyModel>>;

/** Every model of `models`, groups unfolded. */
export function allModels(models: Models): AnyModel[] {
  // A mongoose model is a function (its documents' class); a group is a plain object.
  return Object.values(models).flatMap((entry) =>
    typeof entry === 'function' ? [entry] : Object.values(entry),
  );
}

/** The settings the kernel itself reads; every service's schema extends these. */
export interface KernelConfig {
  NATS_URL: string;
  NATS_STREAM_REPLICAS: number;
  MONGO_URL: string;
  MONGO_DB: string;
  HEALTH_PORT: number;
  OUTBOX_SWEEP_MS: number;
  /** How long a caller waits for a reply: bounds the service's list reads (libs/mongo). */
  RPC_TIMEOUT_MS: number;
}

export interface ServiceDeps<C, M extends Models> {
  config: C;
  log: Logger;
  nc: NatsConnection;
  /**
   * Initialised (indexes built) before `build` runs. Every model a service uses is here: the
   * connection itself is not handed to `build`, so it cannot make (and initialise) one there.
   */
  models: M;
  relay: EventRelay;
}

/** Starts one or more durable consumers (on `deps.nc`). */
export type ConsumerStart = () => Promise<RunningConsumer | RunningConsumer[]>;

/** Something with a life of its own (a payment worker, a dispatcher), stopped after consumers. */
export interface Worker {
  start?(): void;
  stop(): Promise<void>;
}

/** The entry points and background work of a wired service, started in this order by the kernel. */
export interface ServiceEntries<S extends ServiceName> {
  /**
   * Plain NATS subscriptions (on `deps.nc`) that keep in-memory state current. Opened before
   * `load`, so what arrives while a snapshot is read must be applied again on top of it
   * (`ReplayWhileLoading`).
   */
  follow?: () => Subscription[];
  /** In-memory read models, loaded (after `follow`) before anything is served. */
  load?: () => Promise<void>;
  consumers?: ConsumerStart[];
  workers?: Worker[];
  intervals?: IntervalJob[];
  rpc: RpcHandlers<S>;
  /** Closed after the relay has stopped (e.g. an HTTP agent). */
  close?: () => void;
  /** Extra fields of the "<name> service ready" log line. */
  readyFields?: Record<string, unknown>;
}

export interface ServiceDefinition<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
> {
  name: S;
  configSchema: Schema;
  /** Reads the configuration; default: the schema over the environment. */
  loadConfig?: (source: NodeJS.ProcessEnv) => z.infer<Schema>;
  models: (mongo: Connection) => M;
  /** The models whose documents carry pending events (the outbox the relay sweeps). */
  outbox: (models: M) => AnyModel[];
  /** JetStream work queues the service uses (e.g. `VISIT_INTAKE`), made at start. */
  workQueues?: readonly WorkQueueStream[];
  build: (deps: ServiceDeps<z.infer<Schema>, M>) => W | Promise<W>;
}

/** Identity with inference, so a service's definition is checked where it is written. */
export function defineService<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(definition: ServiceDefinition<S, Schema, M, W>): ServiceDefinition<S, Schema, M, W> {
  return definition;
}
