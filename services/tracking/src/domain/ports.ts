import type { AffiliateView, LinkView } from '@aff/contracts';
import type { EventContext, PendingEvent } from '@aff/messaging';

export interface EventRelay {
  relay(pending: PendingEvent[]): void;
}

export interface CallContext {
  merchantId: string;
  events: EventContext;
}

/** Asks the affiliate service (the owner) about a token this service has not heard of yet. */
export interface LinkDirectory {
  resolveToken(
    merchantId: string,
    token: string,
  ): Promise<{ link: LinkView; affiliate: AffiliateView } | null>;
}
