/**
 * Latest known affiliate and campaign of other services (from their events), to embed in
 * payouts and to read a campaign's minimum payout. One shape, two collections.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { AffiliateSnapshot, CampaignSnapshot } from '../domain/records';

function snapshotSchema<T>(extra: Record<string, unknown> = {}) {
  return new Schema<T>(
    {
      _id: { type: String, required: true },
      merchant_id: { type: String, required: true },
      view: { type: Schema.Types.Mixed, required: true },
      updated_at: { type: Date, required: true },
      ...extra,
    },
    { versionKey: false, minimize: false },
  );
}

export function affiliateSnapshotModel(connection: Connection): Model<AffiliateSnapshot> {
  const schema = snapshotSchema<AffiliateSnapshot>({
    campaign_id: { type: String, default: null },
  });
  return connection.model<AffiliateSnapshot>('AffiliateSnapshot', schema, 'affiliate_snapshots');
}

export function campaignSnapshotModel(connection: Connection): Model<CampaignSnapshot> {
  const schema = snapshotSchema<CampaignSnapshot>();
  return connection.model<CampaignSnapshot>('CampaignSnapshot', schema, 'campaign_snapshots');
}
