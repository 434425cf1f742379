/** What the use cases need from the outside world, so they stay free of I/O details. */
import type { EventContext, PendingEvent } from '@aff/messaging';

export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}

/** Who is asking: the tenant, and the trace/request context events should carry. */
export interface CallContext {
  merchantId: string;
  events: EventContext;
  /**
   * The id for a record this call creates: derived from the call's Idempotency-Key when it has
   * one (a re-run after a lost answer gets the same id), random otherwise.
   */
  newId(kind: string): string;
}
