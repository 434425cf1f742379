/**
 * Visitors, leads and conversions per link as referral views show them: the link's document in
 * `link_counts` (kept exactly by referral-tallies.ts), read by `_id` when a referral is shown
 * (concurrent reads share one `$in`). Nothing is read at start, and no referral is read to
 * count (issue 33).
 */
import type { Model } from 'mongoose';
import { MerchantScopedLookup } from '@aff/mongo';
import type { LinkCountsReader } from '../domain/ports';
import type { LinkCounts, ReferralRecord } from '../domain/records';
import type { TallyDoc } from './referral-tally.schema';

export type { LinkCounts };

const NONE: LinkCounts = { visitors: 0, leads: 0, conversions: 0 };

/** What a new referral adds to its counts (a coupon referral may start as a lead). */
export function countsOfNew(record: ReferralRecord): LinkCounts {
  return {
    visitors: 1,
    leads: record.became_lead_at ? 1 : 0,
    conversions: record.became_conversion_at ? 1 : 0,
  };
}

export class StoredLinkCounts implements LinkCountsReader {
  private readonly reads: MerchantScopedLookup<TallyDoc>;

  constructor(model: Model<TallyDoc>) {
    this.reads = new MerchantScopedLookup(model, '_id');
  }

  async get(merchantId: string, linkId: string): Promise<LinkCounts> {
    const doc = await this.reads.get(merchantId, linkId);
    if (!doc) return NONE;
    return {
      visitors: doc.visitors ?? 0,
      leads: doc.leads ?? 0,
      conversions: doc.conversions ?? 0,
    };
  }
}
