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
  /** Outbox of `webhook_endpoint.*` events, written with the change that causes them. */
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

export function endpointModel(connection: Connection): Model<EndpointRecord> {
  return connection.model<EndpointRecord>('WebhookEndpoint', schema, 'webhook_endpoints');
}
