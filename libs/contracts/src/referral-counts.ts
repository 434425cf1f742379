/**
 * Internal event `referral_counts.updated`: the visitors, leads and conversions of the links,
 * affiliates and coupons an insert or step batch of tracking touched, as absolute counts.
 * Tracking counts them exactly (docs/decisions.md, "Referral counts"); every published figure
 * is at most the true count at the time it is read, so the affiliate service applies each with
 * `$max`: a replay, a duplicate or an older event arriving late changes nothing.
 */
import { z } from 'zod';

export const REFERRAL_COUNT_TARGETS = ['link', 'affiliate', 'coupon'] as const;
export type ReferralCountTarget = (typeof REFERRAL_COUNT_TARGETS)[number];

const count = z.number().int().nonnegative();

export const referralCountSchema = z.object({
  /** Whose counts: a link's, an affiliate's (all its referrals) or a coupon's. */
  target: z.enum(REFERRAL_COUNT_TARGETS),
  id: z.string(),
  visitors: count,
  leads: count,
  conversions: count,
});
export type ReferralCount = z.infer<typeof referralCountSchema>;

export const referralCountsSchema = z.object({ counts: z.array(referralCountSchema) });
export type ReferralCounts = z.infer<typeof referralCountsSchema>;
