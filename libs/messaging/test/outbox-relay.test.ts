import { OutboxRelay, type PendingEventStore } from '../src/outbox-relay';
import type { EventPublisher } from '../src/event-publisher';
import { createLogger } from '@aff/logging';

function relayWith(found: () => number) {
  const calls: number[] = [];
  const store: PendingEventStore = {
    findPending: async () => {
      calls.push(Date.now());
      return Array.from({ length: found() }, (_, i) => ({
        event: { id: `e${calls.length}-${i}` } as never,
        context: {},
        documentKey: `d${i}`,
        markPublished: async () => undefined,
      }));
    },
  };
  const publisher = { publish: async () => undefined } as unknown as EventPublisher;
  return { calls, relay: new OutboxRelay(publisher, store, createLogger('test', 'silent')) };
}

describe('the outbox sweep', () => {
  it('runs at once on start, for what a crashed predecessor left', async () => {
    const { calls, relay } = relayWith(() => 0);
    relay.start(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    await relay.stop();
  });

  it('keeps the short interval while sweeps find something', async () => {
    let left = 3;
    const { calls, relay } = relayWith(() => (left-- > 0 ? 1 : 0));
    relay.start(5);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await relay.stop();
    // Warm-up (50 ms at this interval) and three finds keep it at 5 ms, far more than idle would.
    expect(calls.length).toBeGreaterThanOrEqual(5);
  });
});
