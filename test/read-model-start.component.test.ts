/**
 * The kernel opens a service's read-model subscriptions before it loads their snapshots: an
 * event published while a snapshot is being read (another replica's insert while this one
 * restarts) reaches the read model. Before, the kernel loaded first and subscribed after, and a
 * restarted commission replica never listed what the other replica created during its load.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { operationList } from '@aff/contracts';
import { commonConfigSchema, env } from '@aff/config';
import { defineService } from '@aff/kernel';
import type { RpcHandlers } from '@aff/messaging';
import { startComponent, type Component } from './support/component';

const SUBJECT = 'test.read_model_start';
const configSchema = commonConfigSchema.extend({
  MONGO_URL: env.url(['mongodb']),
  MONGO_DB: z.string().min(1),
  HEALTH_PORT: z.coerce.number().int(),
  OUTBOX_SWEEP_MS: env.positiveInt(1000),
});

const unused = () => Promise.reject(new Error('not called in this test'));

let component: Component<unknown> | undefined;
afterEach(async () => {
  await component?.stop();
  component = undefined;
});

it('an event published while the snapshot loads reaches the read model', async () => {
  const steps: string[] = [];
  const received: string[] = [];
  const definition = defineService({
    name: 'payout',
    configSchema,
    models: () => ({}),
    outbox: () => [],
    build: ({ nc }) => ({
      follow: () => {
        steps.push('follow');
        return [
          nc.subscribe(SUBJECT, { callback: (_err, msg) => void received.push(msg.string()) }),
        ];
      },
      load: async () => {
        steps.push('load');
        // Another replica's write, announced while this one reads its snapshot.
        nc.publish(SUBJECT, 'published during the load');
        await nc.flush();
        await delay(200);
      },
      // The kernel checks the table against the contract map (so it is read from the map);
      // nothing calls these here.
      rpc: Object.fromEntries(
        operationList()
          .filter((operation) => operation.owner === 'payout')
          .map((operation) => [operation.name, unused]),
      ) as unknown as RpcHandlers<'payout'>,
    }),
  });
  component = (await startComponent(definition)) as Component<unknown>;
  expect(steps).toEqual(['follow', 'load']);
  expect(received).toEqual(['published during the load']);
});
