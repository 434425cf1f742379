/**
 * Tracking's absolute referral counts applied to the links, affiliates and coupons they count:
 * each figure only ever raises a counter (`$max`), so replays, duplicates and events arriving
 * out of order change nothing, and the events of one record need no order (docs/decisions.md,
 * "Referral counts").
 */
import type { ReferralCount, ReferralCountTarget } from '@aff/contracts';
import type { CountRow, CountedStore } from './ports';

export class ReferralCounts {
  constructor(private readonly stores: Record<ReferralCountTarget, CountedStore>) {}

  async apply(merchantId: string, counts: ReferralCount[]): Promise<void> {
    const rows: Record<ReferralCountTarget, CountRow[]> = { link: [], affiliate: [], coupon: [] };
    for (const { target, id, visitors, leads, conversions } of counts) {
      // A coupon shows leads and conversions only.
      rows[target].push(
        target === 'coupon' ? { id, leads, conversions } : { id, visitors, leads, conversions },
      );
    }
    await Promise.all(
      (Object.keys(rows) as ReferralCountTarget[]).map((target) =>
        rows[target].length > 0
          ? this.stores[target].raiseCounts(merchantId, rows[target])
          : undefined,
      ),
    );
  }
}
