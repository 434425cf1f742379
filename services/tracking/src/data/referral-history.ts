/**
 * The merchant's visitors, leads and conversions as they stood at each of the last UTC
 * midnights, counted from its referrals (`getReferralHistory`: the console overview's chart for
 * days before its first daily reading). Honest because a referral is never deleted and its
 * `created_at`, `became_lead_at` and `became_conversion_at` are each written once: a referral
 * counts as a visitor, lead or conversion at a midnight when that field is before it.
 *
 * One aggregation per call: the merchant's referrals created before the latest midnight, one
 * `$group` with three conditional sums per midnight. On MongoDB 7 the `$match` is a range of
 * `{merchant_id, created_at, _id}`; on the local server it scans the collection (every
 * non-unique filter does), so it carries the list-read time limit (list-time-limit.ts) and a
 * merchant too big for it gets the gateway's 504, as a deep list page does. The operators
 * (`$match`, `$group`, `$sum`, `$cond`, `$lt`, `$ifNull`) are answered alike by both servers.
 */
import type { AccumulatorOperator, Model, PipelineStage } from 'mongoose';
import type { ReferralHistory } from '@aff/contracts';
import { listReadLimitMs, scoped } from '@aff/mongo';
import type { ReferralDocument } from './referral.schema';

const DAY_MS = 86_400_000;
/** Stands in for "never" (a referral not yet a lead): later than any midnight asked about. */
const NEVER = new Date('9999-01-01T00:00:00Z');
const FIELDS = [
  ['visitors', '$created_at'],
  ['leads', '$became_lead_at'],
  ['conversions', '$became_conversion_at'],
] as const;

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
    const sums: Record<string, AccumulatorOperator> = {};
    midnights.forEach((midnight, i) => {
      for (const [name, field] of FIELDS) {
        sums[`${name}_${i}`] = {
          $sum: { $cond: [{ $lt: [{ $ifNull: [field, NEVER] }, midnight] }, 1, 0] },
        };
      }
    });
    const latest = midnights[midnights.length - 1]!;
    const pipeline: PipelineStage[] = [
      // Scoped: only this merchant's referrals. A lead or conversion before a midnight was
      // created before it, so nothing created since the latest midnight counts.
      { $match: scoped<ReferralDocument>(merchantId, { created_at: { $lt: latest } }) },
      { $group: { _id: null, ...sums } },
    ];
    const aggregation = this.model.aggregate<Record<string, number>>(pipeline);
    const limitMs = listReadLimitMs(this.model);
    if (limitMs !== undefined) aggregation.option({ maxTimeMS: limitMs });
    const [counted = {}] = await aggregation.exec();
    return midnights.map((midnight, i) => ({
      at: midnight.toISOString(),
      visitors: counted[`visitors_${i}`] ?? 0,
      leads: counted[`leads_${i}`] ?? 0,
      conversions: counted[`conversions_${i}`] ?? 0,
    }));
  }
}
