/**
 * What the use cases need from the outside world, so they stay free of I/O details. The stores
 * are implemented in data/ over MongoDB; they take and return plain records (records.ts), and a
 * store that writes events with a record relays them itself once the write is done.
 */
import { DuplicateError, type Page } from '@aff/api';
import type { EventEnvelope } from '@aff/contracts';
import type { Claim } from './delivery-claims';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  EndpointRecord,
  Lease,
  LoggedAttempt,
} from './records';
import type { AttemptOutcome } from './retry-schedule';

/** The shared repository vocabulary (libs/api), re-exported for this domain's ports. */
export { DuplicateError, type Page };

/** The one call context of every service (libs/messaging). */
export type { CallContext } from '@aff/messaging';

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
  /**
   * A fresh delivery's own claim: the fan-out made it, in memory, leased to this process; it is
   * stored once its first attempt answers (or at the hand-off's deadline).
   */
  held?: Claim;
}

/** Hands due deliveries to the senders at once; what does not fit waits for the poller. */
export interface DeliveryQueue {
  offer(due: DueDelivery[]): unknown;
}

/** The fields an endpoint write sets. */
export type EndpointChanges = Partial<Omit<EndpointRecord, '_id' | 'merchant_id' | 'created_at'>>;

/** A merchant's webhook endpoints; every call is scoped to the merchant. */
export interface EndpointStore {
  /** Throws `DuplicateError` when an endpoint with this id exists. */
  insert(record: EndpointRecord): Promise<EndpointRecord>;
  findById(merchantId: string, id: string): Promise<EndpointRecord | null>;
  /** Enabled endpoints, newest first. */
  findEnabled(merchantId: string): Promise<EndpointRecord[]>;
  /** Newest first. */
  page(merchantId: string, skip: number, limit: number): Promise<Page<EndpointRecord>>;
  /** The endpoint after the change; null when there is none. */
  update(merchantId: string, id: string, changes: EndpointChanges): Promise<EndpointRecord | null>;
  /** Like `update`, but only while the stored secret is still `secret`. */
  replaceSecret(
    merchantId: string,
    id: string,
    secret: string,
    changes: EndpointChanges,
  ): Promise<EndpointRecord | null>;
  /** Sets `failing_since` only while no run of failures is recorded; false when one was. */
  startFailing(merchantId: string, id: string, at: Date): Promise<boolean>;
  /**
   * Applies `changes` and queues `events` in the same write, only while the endpoint is enabled
   * and has been failing since `failingSince` or earlier; the events are relayed after the
   * write. False when the condition no longer held.
   */
  disable(
    merchantId: string,
    id: string,
    changes: EndpointChanges,
    failingSince: Date,
    events: EventEnvelope[],
  ): Promise<boolean>;
  delete(merchantId: string, id: string): Promise<void>;
}

/** A merchant's endpoints as the senders look them up (an in-memory directory). */
export interface EndpointLookup {
  /** Enabled endpoints of the merchant, newest first. */
  enabledOf(merchantId: string): Promise<EndpointRecord[]>;
  /** One endpoint of the merchant, enabled or not; null when deleted. */
  find(merchantId: string, endpointId: string): Promise<EndpointRecord | null>;
  /** After a change: the directory forgets the merchant's endpoints (here and elsewhere). */
  changed(merchantId: string): void;
}

/** Deliveries (one event for one endpoint), each with its attempts embedded (records.ts). */
export interface DeliveryStore {
  /**
   * Stores a delivery that exists only in memory so far (its first write, after the first
   * answer or at the hand-off's deadline). False when it is already stored (another sender of
   * the event, or the deadline, wrote it first), or this event has one for this endpoint.
   */
  insertOnce(record: DeliveryRecord): Promise<boolean>;
  /** The deliveries an event already has, for any of these endpoints. */
  findForEvent(eventId: string, endpointIds: string[]): Promise<DeliveryRecord[]>;
  findById(merchantId: string, id: string): Promise<DeliveryRecord | null>;
  /** The endpoint's deliveries in the given states (all when none), newest first. */
  pageOfEndpoint(
    merchantId: string,
    endpointId: string,
    states: DeliveryState[],
    skip: number,
    limit: number,
  ): Promise<Page<DeliveryRecord>>;
  /**
   * Takes the slot `slot` of a pending delivery for `lease`: only while the delivery is still at
   * that slot and nobody holds it (or the holder's lease ran out, or the holder is the caller
   * renewing its own lease, `ownToken`). Returns the delivery as it was before, or null.
   */
  claimSlot(
    merchantId: string,
    id: string,
    slot: Date,
    now: Date,
    lease: Lease,
    ownToken?: string,
  ): Promise<DeliveryRecord | null>;
  /**
   * Applies an outcome and logs its attempt in one write, while the claim `token` still holds
   * `slot`, and lets the slot go. False (and nothing written) when the claim no longer holds.
   */
  applyOutcome(
    id: string,
    slot: Date,
    token: string,
    outcome: AttemptOutcome,
    attempt: LoggedAttempt,
  ): Promise<boolean>;
  /** Logs an attempt that decided nothing; a repeat of the same attempt id changes nothing. */
  logAttempt(merchantId: string, id: string, attempt: LoggedAttempt): Promise<void>;
  /** Due again at once with a fresh 3-day window; an attempt in flight no longer decides. */
  requeue(merchantId: string, id: string, now: Date): Promise<DeliveryRecord | null>;
  deleteForEndpoint(merchantId: string, endpointId: string): Promise<void>;
}

/**
 * The delivery log's lines stored apart (`webhook_attempts`) before attempts were embedded in
 * their delivery: read for deliveries stored then, until the log's retention prunes them.
 */
export interface AttemptLog {
  /** Attempts of the given deliveries, oldest first. */
  forDeliveries(merchantId: string, deliveryIds: string[]): Promise<AttemptRecord[]>;
  deleteForEndpoint(merchantId: string, endpointId: string): Promise<void>;
}

/** The stored schedule of pending deliveries: what is due when. */
export interface DeliverySchedule {
  /** Schedules (or moves) the delivery's next attempt. */
  set(due: DueDelivery): Promise<void>;
  remove(deliveryId: string): Promise<void>;
  removeForEndpoint(merchantId: string, endpointId: string): Promise<void>;
}
