import type { PendingEvent } from '@aff/messaging';

/** Publishes the events a write stored in its document (the kernel's outbox relay). */
export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}
