import { createLogger } from '@aff/logging';
import type { DueDelivery } from '../src/domain/ports';
import { DeliveryDispatcher } from '../src/outbound/dispatcher';

const log = createLogger('dispatcher-test', 'silent');
const tick = () => new Promise((resolve) => setImmediate(resolve));
const due = (id: string, endpoint_id: string, slot = 1): DueDelivery => ({
  id,
  merchant_id: 'm1',
  slot,
  endpoint_id,
});

describe('the delivery dispatcher', () => {
  it('bounds attempts per endpoint and overall, so a slow endpoint cannot starve the others', async () => {
    const inFlight = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    const maxPerEndpoint = new Map<string, number>();
    const release: (() => void)[] = [];
    const done: string[] = [];
    const dispatcher = new DeliveryDispatcher(
      async ({ id, endpoint_id: endpoint }) => {
        inFlight.set(endpoint, (inFlight.get(endpoint) ?? 0) + 1);
        maxPerEndpoint.set(
          endpoint,
          Math.max(maxPerEndpoint.get(endpoint) ?? 0, inFlight.get(endpoint)!),
        );
        maxTotal = Math.max(maxTotal, ++total);
        // The slow endpoint never answers until released; the fast one answers at once.
        if (endpoint === 'slow') await new Promise<void>((resolve) => release.push(resolve));
        inFlight.set(endpoint, inFlight.get(endpoint)! - 1);
        total--;
        done.push(id);
      },
      { concurrency: 4, perEndpoint: 2, laneBacklog: 10 },
      log,
    );
    dispatcher.offer(Array.from({ length: 10 }, (_, i) => due(`slow:${i}`, 'slow')));
    dispatcher.offer(Array.from({ length: 10 }, (_, i) => due(`fast:${i}`, 'fast')));
    for (let i = 0; i < 20; i++) await tick();

    expect(done.filter((id) => id.startsWith('fast'))).toHaveLength(10);
    expect(maxPerEndpoint.get('slow')).toBe(2);
    expect(maxTotal).toBeLessThanOrEqual(4);
    expect(dispatcher.fullEndpoints()).toEqual(['slow']);

    while (release.length > 0 || done.length < 20) {
      release.splice(0).forEach((resolve) => resolve());
      await tick();
    }
    expect(done).toHaveLength(20);
    expect(dispatcher.fullEndpoints()).toEqual([]);
    await dispatcher.stop();
  });

  it('queues a delivery slot once, and leaves what does not fit to the poller', async () => {
    const seen: string[] = [];
    const dispatcher = new DeliveryDispatcher(
      async ({ id, slot }) => {
        seen.push(`${id}@${slot}`);
      },
      { concurrency: 1, perEndpoint: 1, laneBacklog: 2, maxQueued: 3 },
      log,
    );
    dispatcher.offer([
      due('a', 'e1'),
      due('a', 'e1'),
      due('a', 'e1', 2), // a later slot of the same delivery (after a redeliver) is its own offer
      due('b', 'e1'), // the lane of e1 is full: left to the poller
      due('d', 'e2'),
      due('e', 'e3'), // over the memory bound: left to the poller
    ]);
    expect(dispatcher.room()).toBe(0);
    for (let i = 0; i < 20; i++) await tick();
    expect(seen.sort()).toEqual(['a@1', 'a@2', 'd@1']);
    expect(dispatcher.room()).toBe(3);
    await dispatcher.stop();
  });
});
