import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { DeliveryRecord } from '../domain/records';

/** A delivery as stored; its outbox stays empty (deliveries announce nothing). */
export interface DeliveryDoc extends DeliveryRecord {
  pending_events: StoredPendingEvent[];
  /**
   * The claim whose attempt's outcome was applied last. Outcomes are applied in bulk writes,
   * which report only how many matched; this tells which did.
   */
  outcome_token?: string | null;
}

const schema = new Schema<DeliveryDoc>(
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
    outcome_token: { type: String, default: null },
    attempts: { type: [Schema.Types.Mixed], default: undefined },
    embedded_log: { type: Boolean },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
// Idempotency of the fan-out: a redelivered event creates no second delivery for an endpoint
// (the id is derived from the pair too; this index also covers deliveries stored before that).
schema.index({ event_id: 1, endpoint_id: 1 }, { unique: true });
// The delivery log of one endpoint, newest first.
schema.index({ merchant_id: 1, endpoint_id: 1, created_at: -1 });

export function deliveryModel(connection: Connection): Model<DeliveryDoc> {
  return connection.model<DeliveryDoc>('WebhookDelivery', schema, 'webhook_deliveries');
}
