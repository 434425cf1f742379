import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A signed-in affiliate's portal session. `_id` is a hash of the cookie value, so a leaked
 * database does not hand out sessions. Expiry is checked in code (no TTL index on every server).
 */
export interface PortalSessionRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  /** The affiliate's name at sign-in, for the page header. */
  name: string;
  /** Synchronizer token the session's forms must send back. */
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
}

const schema = new Schema<PortalSessionRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    name: { type: String, default: '' },
    csrf_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
schema.index({ expires_at: 1 });

export function portalSessionModel(connection: Connection): Model<PortalSessionRecord> {
  return (
    (connection.models.PortalSession as Model<PortalSessionRecord> | undefined) ??
    connection.model<PortalSessionRecord>('PortalSession', schema, 'portal_sessions')
  );
}
