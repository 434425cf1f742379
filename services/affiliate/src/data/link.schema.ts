import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { LinkRecord } from '../domain/records';

export type { LinkRecord };

/** The stored document: the record plus its outbox of events not yet relayed. */
export type LinkDocument = LinkRecord & { pending_events: StoredPendingEvent[] };

const schema = new Schema<LinkDocument>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    token: { type: String, required: true },
    url: { type: String, default: null },
    visitors: { type: Number, default: 0 },
    leads: { type: Number, default: 0 },
    conversions: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false },
);
schema.index({ merchant_id: 1, token: 1 }, { unique: true });
schema.index({ merchant_id: 1, affiliate_id: 1, created_at: -1 });
schema.index({ merchant_id: 1, created_at: -1 });

export function linkModel(connection: Connection): Model<LinkDocument> {
  return connection.model<LinkDocument>('AffiliateLink', schema, 'affiliate_links');
}
