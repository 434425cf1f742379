/**
 * The kernel's rule, checked for every service: `build` wires the object graph and starts
 * nothing. Each service is prepared by the kernel on real servers (a NATS server of the test's
 * own, a fresh database), then built while a probe records what the build does: any call on the
 * NATS connection (a subscription, a request such as a JetStream stream or consumer being made,
 * a publish), any timer it sets, any MongoDB operation and any model it makes (a model made
 * there would be initialised, with its indexes, behind the kernel's back). Then the kernel
 * starts what `build` returned, and the same probe must see that start (subscriptions, requests
 * and the interval jobs' timers): so the probe is shown to see what it looks for.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@aff/config';
import type { ServiceName } from '@aff/contracts';
import { startInfra } from '@aff/devstack';
import {
  prepareService,
  startWiring,
  type KernelConfig,
  type Models,
  type ServiceDefinition,
  type ServiceEntries,
} from '@aff/kernel';
import { createLogger } from '@aff/logging';
import { KeyedWorkQueue, type NatsConnection } from '@aff/messaging';
import { Schema } from 'mongoose';
import type { z } from 'zod';
import { affiliateService } from '../services/affiliate/src/service';
import { commissionService } from '../services/commission/src/service';
import { payoutService } from '../services/payout/src/service';
import { trackingService } from '../services/tracking/src/service';
import { webService } from '../services/web/src/service';
import { webhookService } from '../services/webhook/src/service';

/** What the probe saw, by phase. */
interface Seen {
  build: string[];
  start: string[];
  /** How many consumer starts `build` returned. */
  consumers: number;
}

const SERVICES = {
  affiliate: () => probe(affiliateService),
  commission: () => probe(commissionService),
  payout: () => probe(payoutService),
  tracking: () => probe(trackingService),
  web: () => probe(webService),
  webhook: () => probe(webhookService),
};

it.each(Object.keys(SERVICES) as (keyof typeof SERVICES)[])(
  '%s: build starts nothing; the kernel starts it all',
  async (name) => {
    const seen = await SERVICES[name]();
    expect(seen.build).toEqual([]);
    // The same probe sees the kernel's start: RPC subscriptions, interval jobs' timers, and
    // JetStream requests (consumers made) exactly when the service has consumers.
    expect(seen.start).toContain('nats.subscribe');
    expect(seen.start).toContain('setInterval');
    expect(seen.start.includes('nats.request')).toBe(seen.consumers > 0);
  },
);

it('the probe sees a build that subscribes, opens a queue, sets a timer or makes a model', async () => {
  const seen = await probe({
    ...webService,
    build: async (deps) => {
      const wiring = await webService.build(deps);
      deps.nc.subscribe('test.started.in.build');
      await KeyedWorkQueue.open(deps.nc, { stream: 'TEST_BUILD_QUEUE', subjectPrefix: 'test.q' });
      clearInterval(setInterval(() => undefined, 60_000));
      const mongo = deps.models.portalSession.db;
      mongo.model('MadeInBuild', new Schema({ at: Date }), 'made_in_build');
      return wiring;
    },
  });
  expect(seen.build).toEqual(
    expect.arrayContaining([
      'nats.subscribe',
      'nats.request',
      'setInterval',
      'model MadeInBuild made in build',
    ]),
  );
});

async function probe<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(definition: ServiceDefinition<S, Schema, M, W>): Promise<Seen> {
  const nats = await startInfra({ containers: false, ownNats: true, log: () => undefined });
  const source = {
    NATS_URL: nats.natsUrl,
    MONGO_URL: process.env.MONGO_URL!,
    MONGO_DB: `${definition.name}_build_${randomUUID().slice(0, 8)}`,
    HEALTH_PORT: '-1',
  };
  const config = (
    definition.loadConfig
      ? definition.loadConfig(source)
      : loadConfig(definition.configSchema, source)
  ) as z.infer<Schema> & KernelConfig;
  const log = createLogger(definition.name, 'silent');
  const prepared = await prepareService(definition, config, log);
  const seen: Seen = { build: [], start: [], consumers: 0 };
  let phase: 'build' | 'start' = 'build';
  const record = (what: string) => seen[phase].push(what);

  const nc = recordingNats(prepared.deps.nc, record);
  const models = new Set(prepared.mongo.modelNames());
  prepared.mongo.set('debug', (collection: string, method: string) =>
    record(`mongo.${collection}.${method}`),
  );
  const restoreTimers = recordTimers(record);
  let running: { stop(): Promise<void> } | undefined;
  try {
    const deps = { ...prepared.deps, nc };
    const wiring = await definition.build(deps);
    for (const name of prepared.mongo.modelNames())
      if (!models.has(name)) record(`model ${name} made in build`);
    seen.consumers = wiring.consumers?.length ?? 0;
    phase = 'start';
    running = await startWiring(definition, { ...prepared, deps }, wiring);
  } finally {
    restoreTimers();
    prepared.mongo.set('debug', false);
    await running?.stop();
    await nats.stop();
  }
  return seen;
}

/** The connection, with each method call recorded by name (calls go to the real connection). */
function recordingNats(nc: NatsConnection, record: (what: string) => void): NatsConnection {
  return new Proxy(nc, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        record(`nats.${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * Records every timer set from outside the database and NATS drivers (their own monitors and
 * pings run on timers of their own, whatever the service does); returns the undo.
 */
function recordTimers(record: (what: string) => void): () => void {
  const { setInterval: realInterval, setTimeout: realTimeout } = globalThis;
  const fromDriver = () => /node_modules[\\/](mongodb|@nats-io)[\\/]/.test(new Error().stack ?? '');
  globalThis.setInterval = ((...args: Parameters<typeof realInterval>) => {
    if (!fromDriver()) record('setInterval');
    return realInterval(...args);
  }) as typeof realInterval;
  globalThis.setTimeout = ((...args: Parameters<typeof realTimeout>) => {
    if (!fromDriver()) record('setTimeout');
    return realTimeout(...args);
  }) as typeof realTimeout;
  return () => {
    globalThis.setInterval = realInterval;
    globalThis.setTimeout = realTimeout;
  };
}
