/**
 * Read models this service keeps from the affiliate service's events: what it needs to turn a
 * link token or coupon code into an affiliate and campaign, and to show them in referrals.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { KnownAffiliate, KnownCampaign, KnownCoupon, KnownLink } from '../domain/records';

export type { KnownAffiliate, KnownCampaign, KnownCoupon, KnownLink };

/** True when `a` is a later version of its link than `b` (a copy without a version is oldest). */
export function isNewerLink(a: Pick<KnownLink, 'updated_at'>, b: Pick<KnownLink, 'updated_at'>) {
  return (a.updated_at ?? '') > (b.updated_at ?? '');
}

/** A coupon event's code: `token`, or `code` in events published before the rename. */
export function couponCodeOf(view: { token?: string; code?: string }): string {
  return view.token ?? view.code ?? '';
}

function model<T>(
  connection: Connection,
  name: string,
  collection: string,
  schema: Schema<T>,
): Model<T> {
  return connection.model<T>(name, schema, collection);
}

export function catalogModels(connection: Connection) {
  const links = new Schema<KnownLink>(
    {
      _id: String,
      merchant_id: { type: String, required: true },
      affiliate_id: { type: String, required: true },
      token: { type: String, required: true },
      url: { type: String, required: true },
      created_at: { type: Date, required: true },
      updated_at: String,
    },
    { versionKey: false },
  );
  links.index({ merchant_id: 1, token: 1 }, { unique: true });
  links.index({ merchant_id: 1, affiliate_id: 1, created_at: 1 });

  const affiliates = new Schema<KnownAffiliate>(
    { _id: String, merchant_id: String, view: Schema.Types.Mixed, updated_at: String },
    { versionKey: false, minimize: false },
  );
  const campaigns = new Schema<KnownCampaign>(
    { _id: String, merchant_id: String, view: Schema.Types.Mixed, updated_at: String },
    { versionKey: false, minimize: false },
  );
  const coupons = new Schema<KnownCoupon>(
    { _id: String, merchant_id: String, code: String, affiliate_id: String },
    { versionKey: false },
  );
  coupons.index({ merchant_id: 1, code: 1 }, { unique: true });

  return {
    links: model(connection, 'KnownLink', 'known_links', links),
    affiliates: model(connection, 'KnownAffiliate', 'known_affiliates', affiliates),
    campaigns: model(connection, 'KnownCampaign', 'known_campaigns', campaigns),
    coupons: model(connection, 'KnownCoupon', 'known_coupons', coupons),
  };
}
export type CatalogModels = ReturnType<typeof catalogModels>;
