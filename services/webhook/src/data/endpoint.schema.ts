import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { EndpointRecord } from '../domain/records';

/** An endpoint as stored: the domain's record plus its outbox of `webhook_endpoint.*` events. */
export interface EndpointDoc extends EndpointRecord {
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<EndpointDoc>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    enabled: { type: Boolean, required: true },
    secret: { type: String, required: true },
    previous_secret: { type: String, default: null },
    previous_secret_expires_at: { type: Date, default: null },
    failing_since: { type: Date, default: null },
    disabled_at: { type: Date, default: null },
    disabled_reason: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, enabled: 1 });

export function endpointModel(connection: Connection): Model<EndpointDoc> {
  return connection.model<EndpointDoc>('WebhookEndpoint', schema, 'webhook_endpoints');
}
