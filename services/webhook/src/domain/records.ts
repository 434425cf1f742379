/**
 * The webhook service's records as the use cases see them: plain objects, read and written
 * through the ports (ports.ts). The data layer's schemas are declared from these shapes, plus
 * the storage-only fields (the outbox), so the domain depends on no database library.
 */
import type { DueDelivery } from './ports';

export interface EndpointRecord {
  _id: string;
  merchant_id: string;
  url: string;
  /** Subscribed event types; `*` means every type, including ones added to the catalogue later. */
  events: string[];
  enabled: boolean;
  /** `whsec_<base64 key>`; kept readable because every request is signed with it. */
  secret: string;
  /** The secret replaced by the last rotation; requests carry its signature too until then. */
  previous_secret?: string | null;
  previous_secret_expires_at?: Date | null;
  /**
   * Start of the current run of failed attempts: set by the first failure after a success (or
   * ever), cleared by the next success. Successes write nothing while it is null.
   */
  failing_since?: Date | null;
  /** Set when the endpoint was disabled automatically (endpoint-health.ts). */
  disabled_at?: Date | null;
  disabled_reason?: string | null;
  created_at: Date;
  updated_at: Date;
}

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One event for one endpoint; its id is the `webhook-id` of every request that carries it. */
export interface DeliveryRecord {
  _id: string;
  merchant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The event's `occurred_at`, sent as `event.created_at` exactly as the producer wrote it. */
  event_created_at: string;
  /** The payload's `object`, serialised once so every attempt sends the same record. */
  object_json: string;
  /** Trace context of the event, so the request joins the trace of the call that caused it. */
  trace: { traceparent?: string; tracestate?: string };
  state: DeliveryState;
  /** Start of the 3-day retry window; null until the first attempt (and again after a redeliver). */
  first_attempt_at: Date | null;
  /**
   * The slot of the next attempt; null once delivered or failed. Claims are per slot, and an
   * attempt's outcome applies only while the slot is still the one it claimed.
   */
  next_attempt_at: Date | null;
  /**
   * The sender attempting the current slot holds it until `lease_until`; past that, it is taken
   * to have died and another may attempt the slot (and logs the lost attempt as interrupted).
   * All null while nobody holds it. A fresh delivery is inserted already held by its fan-out.
   */
  lease_until?: Date | null;
  lease_token?: string | null;
  lease_request_id?: string | null;
  lease_started_at?: Date | null;
  /**
   * The delivery log: its attempts, oldest first, each pushed in the same write as the outcome
   * it decided (or alone, when it decided nothing). Deliveries stored before attempts were
   * embedded lack `embedded_log`; their earlier lines are in `webhook_attempts` (deliveries.ts).
   */
  attempts?: LoggedAttempt[];
  embedded_log?: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The lease fields of a delivery nobody holds. */
export const NO_LEASE = {
  lease_until: null,
  lease_token: null,
  lease_request_id: null,
  lease_started_at: null,
} as const;

/** Who holds a delivery's slot, and until when. */
export interface Lease {
  lease_until: Date;
  lease_token: string;
  lease_request_id: string;
  lease_started_at: Date;
}

/**
 * One line of the delivery log: an attempt of one delivery, written once it has an answer (or,
 * for a sender that died mid-attempt, by the sender that takes its slot over, as interrupted).
 * Its id is the claim's token, so an attempt is logged once however often that is retried.
 */
export interface LoggedAttempt {
  _id: string;
  /** The `request.id` of the body sent. */
  request_id: string;
  started_at: Date;
  /** Until then nobody else attempted this slot. */
  lease_until: Date;
  finished_at: Date | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
}

/** A line of the log as stored before attempts were embedded (`webhook_attempts`), still read. */
export interface AttemptRecord extends LoggedAttempt {
  merchant_id: string;
  delivery_id: string;
  endpoint_id: string;
}

export type AttemptResult = Pick<LoggedAttempt, 'response_status' | 'duration_ms' | 'error'>;

/** The schedule entry of a pending delivery: due at its `next_attempt_at`. */
export function toDue(
  record: Pick<DeliveryRecord, '_id' | 'merchant_id' | 'endpoint_id' | 'next_attempt_at'>,
): DueDelivery {
  return {
    id: record._id,
    merchant_id: record.merchant_id,
    slot: new Date(record.next_attempt_at!).getTime(),
    endpoint_id: record.endpoint_id,
  };
}
