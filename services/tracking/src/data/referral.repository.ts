import type { Model } from 'mongoose';
import { TenantRepository } from '@aff/mongo';
import type { ReferralRecord } from './referral.schema';

export interface LinkCounts {
  visitors: number;
  leads: number;
  conversions: number;
}

export class ReferralRepository extends TenantRepository<ReferralRecord> {
  constructor(model: Model<ReferralRecord>) {
    super(model);
  }

  findByCustomer(merchantId: string, processorCustomerId: string): Promise<ReferralRecord | null> {
    return this.findOne(merchantId, { customer_key: customerKey(processorCustomerId) });
  }

  /**
   * Counts per link, computed from the referrals themselves (exact, and nothing to keep in
   * step): visitors = referrals, leads = ever became a lead, conversions = ever converted.
   */
  async linkCounts(merchantId: string, linkIds: string[]): Promise<Map<string, LinkCounts>> {
    const counts = new Map<string, LinkCounts>();
    await Promise.all(
      [...new Set(linkIds)].map(async (linkId) => {
        const base = { merchant_id: merchantId, link_id: linkId };
        const [visitors, leads, conversions] = await Promise.all([
          this.model.countDocuments(base).exec(),
          this.model.countDocuments({ ...base, became_lead_at: { $ne: null } }).exec(),
          this.model.countDocuments({ ...base, became_conversion_at: { $ne: null } }).exec(),
        ]);
        counts.set(linkId, { visitors, leads, conversions });
      }),
    );
    return counts;
  }
}

export function customerKey(processorCustomerId: string): string {
  return `customer:${processorCustomerId}`;
}
