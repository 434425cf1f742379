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
    findPendingIn: async () => ({ items: [], younger: [] }),
  };
  const publisher = { publish: async () => undefined } as unknown as EventPublisher;
  return { calls, relay: new OutboxRelay(publisher, store, createLogger('test', 'silent')) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the outbox sweep', () => {
  it('runs at once on start, for what a crashed predecessor left', async () => {
    const { calls, relay } = relayWith(() => 0);
    relay.start({ intervalMs: 60_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    await relay.stop();
  });

  it('sweeps once more after the start window, then ever more rarely while it finds nothing', async () => {
    const { calls, relay } = relayWith(() => 0);
    relay.start({ intervalMs: 5, startWindowMs: 30, leftoverMs: 60, leftoverMaxMs: 120 });
    await sleep(450);
    await relay.stop();
    // At 0 and about 30, then gaps of 60, 120, 120, …: not one per 5 ms tick (90).
    const gaps = calls.slice(1).map((at, i) => at - calls[i]!);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.length).toBeLessThanOrEqual(7);
    expect(gaps[0]).toBeGreaterThanOrEqual(28);
    expect(gaps[1]).toBeGreaterThanOrEqual(58);
    if (gaps[2] !== undefined) expect(gaps[2]).toBeGreaterThanOrEqual(118);
  });

  it('keeps the short interval while sweeps find something', async () => {
    let left = 4;
    const { calls, relay } = relayWith(() => (left-- > 0 ? 1 : 0));
    relay.start({ intervalMs: 5, startWindowMs: 10_000, leftoverMs: 10_000 });
    await sleep(200);
    await relay.stop();
    // Four finds keep it at 5 ms, then the empty sweep waits for the leftover gap.
    expect(calls).toHaveLength(5);
  });
});

describe('retrying what this process failed to relay', () => {
  it('looks the document up by key, not with a sweep, and publishes its events in order', async () => {
    const published: string[] = [];
    let brokerUp = false;
    const publisher = {
      publish: async (event: { id: string }) => {
        if (!brokerUp) throw new Error('broker away');
        published.push(event.id);
      },
    } as unknown as EventPublisher;
    const item = (id: string) => ({
      event: { id } as never,
      context: {},
      documentKey: 'things:1',
      markPublished: async () => undefined,
    });
    let sweeps = 0;
    const lookups: string[][] = [];
    const store: PendingEventStore = {
      findPending: async () => {
        sweeps += 1;
        return [];
      },
      // The document holds both events: the failed one and the one written after it.
      findPendingIn: async (keys) => {
        lookups.push(keys);
        return { items: [item('e1'), item('e2')], younger: [] };
      },
    };
    const relay = new OutboxRelay(publisher, store, createLogger('t', 'silent'));
    relay.start({ intervalMs: 5, startWindowMs: 60_000 });
    relay.relay([item('e1')]);
    await relay.flush();
    expect(relay.retrying).toBe(1);
    // A later write's event of the same document waits for the retry instead of overtaking.
    relay.relay([item('e2')]);
    await relay.flush();
    expect(published).toEqual([]);
    brokerUp = true;
    await sleep(60);
    await relay.stop();
    expect(published).toEqual(['e1', 'e2']);
    expect(lookups[0]).toEqual(['things:1']);
    expect(relay.retrying).toBe(0);
    expect(sweeps).toBe(1);
  });

  it('keeps a document whose events are still too young on the list', async () => {
    const store: PendingEventStore = {
      findPending: async () => [],
      findPendingIn: async () => ({ items: [], younger: ['things:1'] }),
    };
    const failing = {
      publish: async () => {
        throw new Error('broker away');
      },
    } as unknown as EventPublisher;
    const relay = new OutboxRelay(failing, store, createLogger('t', 'silent'));
    relay.relay([
      {
        event: { id: 'e1' } as never,
        context: {},
        documentKey: 'things:1',
        markPublished: async () => undefined,
      },
    ]);
    await relay.flush();
    expect(await relay.retry()).toBe(0);
    expect(relay.retrying).toBe(1);
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
    const store: PendingEventStore = {
      findPending: async () => [],
      findPendingIn: async () => ({ items: [], younger: [] }),
    };
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
