/**
 * Relays events that were stored inside a document write (the outbox) to JetStream, then
 * clears them. Relaying does not hold up the write that stored the events: publishes run in
 * the background, concurrently across documents and in order within one document, and the
 * clearing writes are batched by the store. The stream's de-duplication and idempotent
 * consumers absorb a second publish.
 *
 * What a live process fails to relay it knows of (a failed publish or clear): those documents
 * are retried by `_id` every `intervalMs`, a look-up on both servers. Only the leftovers of a
 * process that died need a full sweep, which reads every document with pending events (on the
 * local server, a scan of every outbox collection, whose cost grows with history): it runs at
 * start, once more when the start's grace has passed, then rarely, backing off while it finds
 * nothing (docs/decisions.md, "Outbox and due sweeps that do not grow with history").
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

/** What a look-up of some documents found. */
export interface PendingLookup {
  /** Their events queued before the cutoff, in each document's order. */
  items: PendingEvent[];
  /** Documents that still hold events queued after the cutoff (to look at again later). */
  younger: string[];
}

/** Where pending events live; implemented over mongoose models in @aff/mongo. */
export interface PendingEventStore {
  /** Pending events queued before `olderThan`, in any document (a full sweep). */
  findPending(olderThan: Date, limit: number): Promise<PendingEvent[]>;
  /** Pending events queued before `olderThan` in the given documents only (by `_id`). */
  findPendingIn(documentKeys: string[], olderThan: Date): Promise<PendingLookup>;
}

export interface SweepSchedule {
  /** Retries of documents this process failed to relay, and sweeps while they find something. */
  intervalMs: number;
  /**
   * The second sweep after start: by then every event a dead predecessor queued is older than
   * any grace the store applies (REPAIR_GRACE_MS, 10 s, in @aff/mongo).
   */
  startWindowMs: number;
  /** The gap after a sweep that found nothing; doubled after each further empty sweep… */
  leftoverMs: number;
  /** …up to this. */
  leftoverMaxMs: number;
}

export const DEFAULT_SWEEPS: SweepSchedule = {
  intervalMs: 1_000,
  startWindowMs: 12_000,
  leftoverMs: 60_000,
  leftoverMaxMs: 15 * 60_000,
};

const SWEEP_BATCH = 500;
/** Events younger than this are left to the relay that handed them over. */
const GRACE_MS = 2_000;

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  /** Documents whose events this process failed to publish or clear: retried by `_id`. */
  private readonly retries = new Set<string>();
  /** The last publish chain of each document with events in flight. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly publisher: EventPublisher,
    private readonly store: PendingEventStore,
    private readonly log: Logger,
  ) {}

  /**
   * Publishes right after the write that stored them, without making the writer wait; failures
   * are retried by document. `flush()` waits for everything handed over so far.
   */
  relay(pending: PendingEvent[]): void {
    for (const [documentKey, items] of byDocument(pending)) {
      // An earlier event of this document failed and waits for its retry: a later one must
      // not overtake it. The retry reads the document, this event included.
      if (this.retries.has(documentKey)) continue;
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

  /** Documents waiting for a retry of events this process failed to relay. */
  get retrying(): number {
    return this.retries.size;
  }

  /**
   * One document's events, in order; an event after a failed one waits for the retry, so the
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
    this.retries.add(item.documentKey);
    this.log.warn({ err: error, eventId: item.event.id }, 'event publish deferred to a retry');
  }

  /** Sweep events that have waited longer than `graceMs` (so in-flight relays are not raced). */
  async sweep(graceMs = GRACE_MS): Promise<number> {
    const pending = await this.store.findPending(new Date(Date.now() - graceMs), SWEEP_BATCH);
    this.relay(pending);
    await this.flush();
    return pending.length;
  }

  /**
   * Looks up the documents this process failed to relay (by `_id`) and publishes what they
   * still hold; a document whose events are too young to take yet stays on the list.
   */
  async retry(graceMs = GRACE_MS): Promise<number> {
    const keys = [...this.retries].slice(0, SWEEP_BATCH);
    if (keys.length === 0) return 0;
    const found = await this.store.findPendingIn(keys, new Date(Date.now() - graceMs));
    for (const key of keys) this.retries.delete(key);
    this.relay(found.items);
    for (const key of found.younger) this.retries.add(key);
    await this.flush();
    return found.items.length;
  }

  /**
   * Sweeps at once (what a crashed predecessor left) and once the start's grace has passed,
   * then rarely; retries this process's own failures every `intervalMs`.
   */
  start(schedule: Partial<SweepSchedule> = {}): void {
    const { intervalMs, startWindowMs, leftoverMs, leftoverMaxMs } = {
      ...DEFAULT_SWEEPS,
      ...schedule,
    };
    const startedAt = Date.now();
    let nextSweepAt = startedAt;
    let quietGap = leftoverMs;
    const tick = async () => {
      try {
        await this.retry();
      } catch (error) {
        this.log.warn({ err: error }, 'outbox retry failed');
      }
      if (Date.now() < nextSweepAt) return;
      let found: number;
      try {
        found = await this.sweep();
      } catch (error) {
        this.log.warn({ err: error }, 'outbox sweep failed');
        found = 1;
      }
      if (found > 0) {
        quietGap = leftoverMs;
        nextSweepAt = Date.now() + intervalMs;
      } else if (Date.now() < startedAt + startWindowMs) {
        nextSweepAt = startedAt + startWindowMs;
      } else {
        nextSweepAt = Date.now() + quietGap;
        quietGap = Math.min(quietGap * 2, leftoverMaxMs);
      }
    };
    const run = () => {
      this.ticking = tick().then(() => {
        this.ticking = undefined;
        if (this.stopped) return;
        this.timer = setTimeout(run, intervalMs);
        this.timer.unref();
      });
    };
    run();
  }

  /** Stops sweeping and waits for the events already handed over to be published. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
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
