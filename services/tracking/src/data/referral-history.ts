/**
 * The merchant's visitors, leads and conversions as they stood at each of the last UTC
 * midnights, counted from its referrals (`getReferralHistory`: the console overview's chart for
 * days before its first daily reading). Honest because a referral is never deleted and its
 * `created_at`, `became_lead_at` and `became_conversion_at` are each written once: a referral
 * counts as a visitor, lead or conversion at a midnight when that field is before it.
 *
 * One aggregation per call: the merchant's referrals created before the latest midnight, then
 * a `$facet` that puts each of the three dates into day buckets (`$bucket` with the midnights as
 * boundaries; the oldest bucket starts at the epoch), so each referral is placed once per field
 * (a `$group` of three conditional sums per midnight, the first version, evaluated 93
 * expressions per referral). The counts before a midnight are the sums of the buckets below it.
 * On MongoDB 7 the first `$match` is a range of `{merchant_id, created_at, _id}`; on the local
 * server it scans the collection (every non-unique filter does), so the aggregation carries the
 * list-read time limit (list-time-limit.ts) and a merchant too big for it gets the gateway's
 * 504, as a deep list page does. `$facet` and `$bucket` are answered alike by both servers
 * (services/tracking/test/referral-history.component.test.ts runs on the local one).
 */
import type { Model, PipelineStage } from 'mongoose';
import type { ReferralHistory } from '@aff/contracts';
import { listReadLimitMs, scoped } from '@aff/mongo';
import type { ReferralDocument } from './referral.schema';

const DAY_MS = 86_400_000;
type Figure = 'visitors' | 'leads' | 'conversions';
/** A `$bucket` of referrals: its lower boundary (a midnight, or the epoch) and how many. */
interface Bucket {
  _id: Date | string;
  count: number;
}

/** The last `days` UTC midnights, oldest first; the last is the start of `now`'s day. */
export function midnightsBefore(now: Date, days: number): Date[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS));
}

export class ReferralHistoryCounts {
  constructor(
    private readonly model: Model<ReferralDocument>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async atMidnights(merchantId: string, days: number): Promise<ReferralHistory['midnights']> {
    const midnights = midnightsBefore(this.now(), days);
    const latest = midnights[midnights.length - 1]!;
    // Buckets [epoch, first midnight), then one per day up to the latest midnight.
    const boundaries = [new Date(0), ...midnights];
    const bucketed = (field: string): PipelineStage.FacetPipelineStage[] => [
      { $match: { [field]: { $ne: null, $lt: latest } } },
      { $bucket: { groupBy: `$${field}`, boundaries, default: 'outside' } },
    ];
    const pipeline: PipelineStage[] = [
      // Scoped: only this merchant's referrals. A lead or conversion before a midnight was
      // created before it, so nothing created since the latest midnight counts.
      { $match: scoped<ReferralDocument>(merchantId, { created_at: { $lt: latest } }) },
      {
        $facet: {
          visitors: bucketed('created_at'),
          leads: bucketed('became_lead_at'),
          conversions: bucketed('became_conversion_at'),
        },
      },
    ];
    const aggregation = this.model.aggregate<Record<Figure, Bucket[]>>(pipeline);
    const limitMs = listReadLimitMs(this.model);
    if (limitMs !== undefined) aggregation.option({ maxTimeMS: limitMs });
    const [found] = await aggregation.exec();
    const before = (figure: Figure, midnight: Date) =>
      (found?.[figure] ?? [])
        .filter((b) => b._id instanceof Date && b._id < midnight)
        .reduce((sum, b) => sum + b.count, 0);
    return midnights.map((midnight) => ({
      at: midnight.toISOString(),
      visitors: before('visitors', midnight),
      leads: before('leads', midnight),
      conversions: before('conversions', midnight),
    }));
  }
}
