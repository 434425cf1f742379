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

describe('relaying the events of one write', () => {
  /** A document's events; `failOn`: the id the publisher refuses. Records what happened, in order. */
  function oneDocument(ids: string[], failOn?: string) {
    const log: string[] = [];
    const publisher = {
      publish: async (event: { id: string }) => {
        if (event.id === failOn) throw new Error('broker away');
        log.push(`publish ${event.id}`);
      },
    } as unknown as EventPublisher;
    const pending = ids.map((id) => ({
      event: { id } as never,
      context: {},
      documentKey: 'things:1',
      markPublished: async () => {
        log.push(`clear ${id}`);
      },
    }));
    const store: PendingEventStore = { findPending: async () => [] };
    return { log, pending, relay: new OutboxRelay(publisher, store, createLogger('t', 'silent')) };
  }

  it('publishes them in order, then clears them together (one write for the store)', async () => {
    const { log, pending, relay } = oneDocument(['e1', 'e2', 'e3']);
    relay.relay(pending);
    await relay.flush();
    expect(log).toEqual([
      'publish e1',
      'publish e2',
      'publish e3',
      'clear e1',
      'clear e2',
      'clear e3',
    ]);
  });

  it('leaves the failed event and every later one to the sweep, so their order holds', async () => {
    const { log, pending, relay } = oneDocument(['e1', 'e2', 'e3'], 'e2');
    relay.relay(pending);
    await relay.flush();
    expect(log).toEqual(['publish e1', 'clear e1']);
  });
});
