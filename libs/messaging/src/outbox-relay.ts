/**
 * Relays events that were stored inside a document write (the outbox) to JetStream, then
 * clears them. Relaying does not hold up the write that stored the events: publishes run in
 * the background, concurrently across documents and in order within one document, and the
 * clearing writes are batched by the store. A sweep picks up whatever a crashed process left
 * behind; the stream's de-duplication and idempotent consumers absorb a second publish. A sweep
 * reads every document with pending events (on mongo-java-server, a scan of the collection), so
 * it runs every `intervalMs` only while there is reason to (the first moments after a start,
 * after a failed publish, while sweeps find something) and ten times less often otherwise.
 */
import type { EventEnvelope } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { EventContext, EventPublisher } from './event-publisher';

export interface PendingEvent {
  event: EventEnvelope;
  context: EventContext;
  /** Identifies the document that stored the event; its events are published in order. */
  documentKey: string;
  /** Removes the event from the document that stored it (batched by the store). */
  markPublished(): Promise<void>;
}

/**
 * Publishes the events a write stored in its document: the kernel's outbox relay, a recorder in
 * tests. Repositories that write events take one.
 */
export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}

/** Where pending events live; implemented over mongoose models in @aff/mongo. */
export interface PendingEventStore {
  /** Pending events queued before `olderThan`. */
  findPending(olderThan: Date, limit: number): Promise<PendingEvent[]>;
}

const SWEEP_BATCH = 500;
/** Quiet sweeps come this many times less often than the busy ones. */
const IDLE_FACTOR = 10;

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  /** Publishes that failed since the last sweep: the next one comes soon. */
  private failures = 0;
  /** The last publish chain of each document with events in flight. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly publisher: EventPublisher,
    private readonly store: PendingEventStore,
    private readonly log: Logger,
  ) {}

  /**
   * Publishes right after the write that stored them, without making the writer wait; failures
   * are left for the sweep. `flush()` waits for everything handed over so far.
   */
  relay(pending: PendingEvent[]): void {
    for (const [documentKey, items] of byDocument(pending)) {
      const previous = this.chains.get(documentKey) ?? Promise.resolve();
      const next = previous.then(() => this.publishInOrder(items));
      this.chains.set(documentKey, next);
      void next.finally(() => {
        if (this.chains.get(documentKey) === next) this.chains.delete(documentKey);
      });
    }
  }

  /** Resolves when every event handed to `relay` so far has been published or deferred. */
  async flush(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  /**
   * One document's events, in order; an event after a failed one waits for the sweep, so the
   * order holds. The published ones are cleared together, which the store does in one write.
   */
  private async publishInOrder(items: PendingEvent[]): Promise<void> {
    const published: PendingEvent[] = [];
    for (const item of items) {
      try {
        await this.publisher.publish(item.event, item.context);
        published.push(item);
      } catch (error) {
        this.deferred(error, item);
        break;
      }
    }
    await Promise.all(
      published.map((item) => item.markPublished().catch((error) => this.deferred(error, item))),
    );
  }

  private deferred(error: unknown, item: PendingEvent): void {
    this.failures += 1;
    this.log.warn({ err: error, eventId: item.event.id }, 'event publish deferred to sweep');
  }

  /** Sweep events that have waited longer than `graceMs` (so in-flight relays are not raced). */
  async sweep(graceMs = 2000): Promise<number> {
    const pending = await this.store.findPending(new Date(Date.now() - graceMs), SWEEP_BATCH);
    this.relay(pending);
    await this.flush();
    return pending.length;
  }

  /** Sweeps at once (what a crashed predecessor left), then as often as there is reason to. */
  start(intervalMs = 1000): void {
    const startedAt = Date.now();
    const idleMs = intervalMs * IDLE_FACTOR;
    const tick = async () => {
      const failuresBefore = this.failures;
      let found = 0;
      try {
        found = await this.sweep();
      } catch (error) {
        this.log.warn({ err: error }, 'outbox sweep failed');
        found = 1;
      }
      const busy = found > 0 || this.failures > 0 || Date.now() - startedAt < idleMs;
      this.failures -= failuresBefore;
      return busy ? intervalMs : idleMs;
    };
    const run = () => {
      this.sweeping = tick().then((nextMs) => {
        this.sweeping = undefined;
        if (this.stopped) return;
        this.timer = setTimeout(run, nextMs);
        this.timer.unref();
      });
    };
    run();
  }

  /** Stops sweeping and waits for the events already handed over to be published. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sweeping;
    await this.flush();
  }
}

/** Events grouped by the document that stored them, each group in the order given. */
function byDocument(pending: PendingEvent[]): Map<string, PendingEvent[]> {
  const groups = new Map<string, PendingEvent[]>();
  for (const item of pending) {
    const group = groups.get(item.documentKey);
    if (group) group.push(item);
    else groups.set(item.documentKey, [item]);
  }
  return groups;
}
