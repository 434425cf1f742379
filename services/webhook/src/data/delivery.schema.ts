import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

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
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<DeliveryRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    event_id: { type: String, required: true },
    event_type: { type: String, required: true },
    event_created_at: { type: String, required: true },
    object_json: { type: String, required: true },
    trace: { type: Schema.Types.Mixed, default: () => ({}) },
    state: { type: String, required: true },
    first_attempt_at: { type: Date, default: null },
    next_attempt_at: { type: Date, default: null },
    lease_until: { type: Date, default: null },
    lease_token: { type: String, default: null },
    lease_request_id: { type: String, default: null },
    lease_started_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
// Idempotency of the fan-out: a redelivered event creates no second delivery for an endpoint.
schema.index({ event_id: 1, endpoint_id: 1 }, { unique: true });
// The delivery log of one endpoint, newest first.
schema.index({ merchant_id: 1, endpoint_id: 1, created_at: -1 });

export function deliveryModel(connection: Connection): Model<DeliveryRecord> {
  return connection.model<DeliveryRecord>('WebhookDelivery', schema, 'webhook_deliveries');
}
