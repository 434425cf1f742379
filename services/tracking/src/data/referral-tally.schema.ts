/**
 * The stored referral counts of links, affiliates, coupons and merchants (one collection per
 * kind, one document per link, affiliate, coupon or merchant), with the reservations not yet settled on them
 * (`pending`, see referral-tallies.ts).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { ReferralCountTarget } from '@aff/contracts';
import type { LinkCounts } from '../domain/records';

/** A step of a referral that counts: it became a visitor (was created), a lead, a conversion. */
export type CountStep = 'visitor' | 'lead' | 'conversion';

/** Which reservation each counted step of a referral was written under (`count_marks`). */
export type CountMarks = Partial<Record<CountStep, string>>;

/**
 * One referral's part in a reservation: what it adds when its write carries the reservation's
 * id on `step` (the write applied), and nothing otherwise (it did not, or never happened).
 */
export interface PendingRef extends LinkCounts {
  r: string;
  step: CountStep;
}

export interface PendingEntry {
  id: string;
  at: Date;
  refs: PendingRef[];
}

export interface TallyDoc extends LinkCounts {
  _id: string;
  merchant_id: string;
  pending?: PendingEntry[];
  /** When a settle last changed the counts: the sweep publishes again what changed lately. */
  settled_at?: Date;
}

/**
 * What a count document counts: a link, an affiliate or a coupon (published to the affiliate
 * service), or the whole merchant (`_id` = the merchant's id; kept for the console's overview,
 * read by `getReferralTotals`, never published).
 */
export type TallyTarget = ReferralCountTarget | 'merchant';

/** The targets whose counts are published (`referral_counts.updated`). */
export const PUBLISHED_TARGETS: ReferralCountTarget[] = ['link', 'affiliate', 'coupon'];
/** Every target: each reservation covers one document of each that its referrals touch. */
export const TALLY_TARGETS: TallyTarget[] = [...PUBLISHED_TARGETS, 'merchant'];

export type TallyModels = Record<TallyTarget, Model<TallyDoc>>;

const COLLECTIONS: Record<TallyTarget, [string, string]> = {
  link: ['LinkCount', 'link_counts'],
  affiliate: ['AffiliateCount', 'affiliate_counts'],
  coupon: ['CouponCount', 'coupon_counts'],
  merchant: ['MerchantReferralCount', 'merchant_referral_counts'],
};

function tallyModel(connection: Connection, target: TallyTarget): Model<TallyDoc> {
  const [name, collection] = COLLECTIONS[target];
  const existing = connection.models[name] as Model<TallyDoc> | undefined;
  if (existing) return existing;
  const schema = new Schema<TallyDoc>(
    {
      _id: { type: String, required: true },
      merchant_id: { type: String, required: true },
      visitors: { type: Number, default: 0 },
      leads: { type: Number, default: 0 },
      conversions: { type: Number, default: 0 },
      pending: { type: Schema.Types.Mixed },
      settled_at: { type: Date },
    },
    { versionKey: false },
  );
  schema.index({ 'pending.at': 1 });
  schema.index({ settled_at: 1 });
  return connection.model<TallyDoc>(name, schema, collection);
}

export function tallyModels(connection: Connection): TallyModels {
  return {
    link: tallyModel(connection, 'link'),
    affiliate: tallyModel(connection, 'affiliate'),
    coupon: tallyModel(connection, 'coupon'),
    merchant: tallyModel(connection, 'merchant'),
  };
}
