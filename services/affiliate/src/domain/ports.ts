/** What the use cases need from the outside world, so they stay free of I/O details. */
import type { EventContext, PendingEvent } from '@aff/messaging';

export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}

/** Who is asking: the tenant, and the trace/request context events should carry. */
export interface CallContext {
  merchantId: string;
  events: EventContext;
}
