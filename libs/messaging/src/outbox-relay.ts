/**
 * Relays events that were stored inside a document write (the outbox) to JetStream, then
 * clears them. A sweep on an interval picks up whatever a crashed process left behind; the
 * stream's de-duplication and idempotent consumers absorb a second publish.
 */
import type { EventEnvelope } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { EventContext, EventPublisher } from './event-publisher';

export interface PendingEvent {
  event: EventEnvelope;
  context: EventContext;
  /** Removes the event from the document that stored it. */
  markPublished(): Promise<void>;
}

/** Where pending events live; implemented over mongoose models in @aff/mongo. */
export interface PendingEventStore {
  /** Pending events queued before `olderThan`. */
  findPending(olderThan: Date, limit: number): Promise<PendingEvent[]>;
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly publisher: EventPublisher,
    private readonly store: PendingEventStore,
    private readonly log: Logger,
  ) {}

  /** Publish right after the write that stored them; failures are left for the sweep. */
  async relay(pending: PendingEvent[]): Promise<void> {
    for (const item of pending) {
      try {
        await this.publisher.publish(item.event, item.context);
        await item.markPublished();
      } catch (error) {
        this.log.warn({ err: error, eventId: item.event.id }, 'event publish deferred to sweep');
      }
    }
  }

  /** Sweep events that have waited longer than `graceMs` (so in-flight relays are not raced). */
  async sweep(graceMs = 2000): Promise<number> {
    const pending = await this.store.findPending(new Date(Date.now() - graceMs), 100);
    await this.relay(pending);
    return pending.length;
  }

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .then(() => undefined)
        .catch((error: unknown) => this.log.warn({ err: error }, 'outbox sweep failed'))
        .finally(() => {
          this.sweeping = undefined;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}
