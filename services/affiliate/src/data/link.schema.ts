import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';

export interface LinkRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  token: string;
  /** Landing page chosen for this link; null (or absent on older links) = the campaign's URL. */
  url?: string | null;
  visitors: number;
  leads: number;
  conversions: number;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<LinkRecord>(
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

export function linkModel(connection: Connection): Model<LinkRecord> {
  return connection.model<LinkRecord>('AffiliateLink', schema, 'affiliate_links');
}
