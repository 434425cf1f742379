/** What the use cases need from the outside world, so they stay free of I/O details. */
import type { Claim } from '../data/delivery-claims';

/** Who is asking: the tenant. */
export interface CallContext {
  merchantId: string;
  /**
   * The id for a record this call creates: derived from the call's Idempotency-Key when it has
   * one (a re-run after a lost answer gets the same id), random otherwise.
   */
  newId(kind: string): string;
}

/** W3C trace context of the event that caused a delivery. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Never throws: a refused, failed or timed-out request is a result with `error` set. */
export interface SendResult {
  status: number | null;
  durationMs: number;
  error: string | null;
  /** From a `Retry-After` answer; the next attempt is not made earlier. */
  retryAfterMs: number | null;
}

export interface WebhookSender {
  send(request: OutboundRequest, trace: TraceCarrier): Promise<SendResult>;
}

/** A delivery that is due: its id, the slot it is due for, and the endpoint it counts against. */
export interface DueDelivery {
  id: string;
  merchant_id: string;
  /** `next_attempt_at` in ms: the attempt claims this slot, so a stale offer claims nothing. */
  slot: number;
  endpoint_id: string;
  /** A fresh delivery's own claim (it was inserted leased to this process). */
  held?: Claim;
}

/** Hands due deliveries to the senders at once; what does not fit waits for the poller. */
export interface DeliveryQueue {
  offer(due: DueDelivery[]): unknown;
}
