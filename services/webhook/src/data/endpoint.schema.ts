import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

export interface EndpointRecord {
  _id: string;
  merchant_id: string;
  url: string;
  /** Subscribed event types; `*` means every type, including ones added to the catalogue later. */
  events: string[];
  enabled: boolean;
  /** `whsec_<base64 key>`; kept readable because every request is signed with it. */
  secret: string;
  created_at: Date;
  updated_at: Date;
  /** Always empty: endpoints publish no events, but share the tenant repository's shape. */
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<EndpointRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    enabled: { type: Boolean, required: true },
    secret: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, enabled: 1 });

export function endpointModel(connection: Connection): Model<EndpointRecord> {
  return connection.model<EndpointRecord>('WebhookEndpoint', schema, 'webhook_endpoints');
}
