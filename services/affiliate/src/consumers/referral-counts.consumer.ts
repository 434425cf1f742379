/** Tracking's referral counts (one event per batch it wrote) raise the counters of links, affiliates and coupons. */
import { eventHandlers } from '@aff/messaging';
import type { ReferralCounts } from '../domain/referral-counts';

/* No ordering key: every counter moves by `$max`, so events apply in any order and at once. */
export function referralCountsConsumer(counts: ReferralCounts) {
  return eventHandlers({
    'referral_counts.updated': (data, { event }) => counts.apply(event.merchant_id, data.counts),
  });
}
