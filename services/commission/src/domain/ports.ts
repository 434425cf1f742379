import type { EventContext, PendingEvent } from '@aff/messaging';

export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}

export interface CallContext {
  merchantId: string;
  events: EventContext;
}
