import { createLogger } from '@aff/logging';
import { DeliveryDispatcher } from '../src/outbound/dispatcher';

const log = createLogger('dispatcher-test', 'silent');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the delivery dispatcher', () => {
  it('bounds attempts per endpoint and overall, so a slow endpoint cannot starve the others', async () => {
    const inFlight = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    const maxPerEndpoint = new Map<string, number>();
    const release: (() => void)[] = [];
    const done: string[] = [];
    const dispatcher = new DeliveryDispatcher(
      async (id) => {
        const endpoint = id.split(':')[0]!;
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
    dispatcher.offer(
      Array.from({ length: 10 }, (_, i) => ({ id: `slow:${i}`, endpoint_id: 'slow' })),
    );
    dispatcher.offer(
      Array.from({ length: 10 }, (_, i) => ({ id: `fast:${i}`, endpoint_id: 'fast' })),
    );
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

  it('queues an id once, and leaves what does not fit to the poller', async () => {
    const seen: string[] = [];
    const dispatcher = new DeliveryDispatcher(
      async (id) => {
        seen.push(id);
      },
      { concurrency: 1, perEndpoint: 1, laneBacklog: 2, maxQueued: 3 },
      log,
    );
    dispatcher.offer([
      { id: 'a', endpoint_id: 'e1' },
      { id: 'a', endpoint_id: 'e1' },
      { id: 'b', endpoint_id: 'e1' },
      { id: 'c', endpoint_id: 'e1' },
      { id: 'd', endpoint_id: 'e2' },
    ]);
    expect(dispatcher.room()).toBe(0);
    for (let i = 0; i < 20; i++) await tick();
    expect(seen.sort()).toEqual(['a', 'b', 'd']);
    expect(dispatcher.room()).toBe(3);
    await dispatcher.stop();
  });
});
