import type { EventContext, PendingEvent } from '@aff/messaging';

export interface EventRelay {
  relay(pending: PendingEvent[]): Promise<void>;
}

export interface CallContext {
  merchantId: string;
  events: EventContext;
}
