/**
 * A merchant's long history written as the services write it: batches of documents shaped like
 * tracking's referrals and commission's commissions, each batch one unordered `insertMany`
 * followed by the update of the merchant's count document (libs/mongo `MerchantCounts`: its
 * count and newest ids) and, for
 * referrals, of their link's and affiliate's stored counts (tracking's `link_counts` and
 * `affiliate_counts`), as tracking's referral tallies do once settled. The bench's scale phase and the start-up regression test use it.
 */
import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';

/** As libs/mongo's NEWEST_KEPT (devstack does not depend on the runtime libraries). */
const NEWEST_KEPT = 1_000;

type Db = mongo.Db;

export interface SeedTarget {
  merchantId: string;
  affiliateId: string;
  campaignId: string;
  linkId: string;
}

export interface SeedOptions {
  count: number;
  /** Documents per `insertMany` (default 5,000). */
  batch?: number;
  /** Batches written at the same time (default 2). */
  inFlight?: number;
  /** Creation times end here and go back one millisecond per record (default now). */
  newest?: Date;
  onProgress?: (written: number) => void;
}

const DAY_MS = 86_400_000;
const STATES = ['visitor', 'visitor', 'visitor', 'lead', 'conversion'] as const;

/** Writes `count` referrals (mostly visitors, some leads and conversions) into tracking's db. */
export function seedReferrals(db: Db, target: SeedTarget, opts: SeedOptions): Promise<void> {
  const counted = async (rows: Record<string, unknown>[]) => {
    const leads = rows.filter((r) => r.became_lead_at).length;
    const conversions = rows.filter((r) => r.became_conversion_at).length;
    const raise = { $inc: { visitors: rows.length, leads, conversions } };
    // The link's, affiliate's and merchant's stored counts, as a settled reservation leaves them.
    const targets: [string, string][] = [
      ['link_counts', target.linkId],
      ['affiliate_counts', target.affiliateId],
      ['merchant_referral_counts', target.merchantId],
    ];
    await Promise.all(
      targets.map(([collection, id]) =>
        db
          .collection<{ _id: string }>(collection)
          .updateOne({ _id: id, merchant_id: target.merchantId }, raise, { upsert: true }),
      ),
    );
  };
  return seed(db, 'referrals', 'referral_counts', target.merchantId, opts, counted, (i, at) => {
    const id = randomUUID();
    const state = STATES[i % STATES.length]!;
    const lead = state === 'visitor' ? null : at;
    return {
      _id: id,
      merchant_id: target.merchantId,
      link_id: target.linkId,
      affiliate_id: target.affiliateId,
      campaign_id: target.campaignId,
      coupon_id: null,
      visits: 1,
      email: lead ? `seeded-${i}@example.com` : null,
      customer: null,
      processor_customer_id: null,
      customer_key: `none:${id}`,
      processor_account_id: null,
      conversion_state: state,
      became_lead_at: lead,
      became_conversion_at: state === 'conversion' ? at : null,
      expires_at: new Date(at.getTime() + 30 * DAY_MS),
      deactivated_at: null,
      landing_url: 'https://shop.example.com/',
      referrer: null,
      created_at: at,
      updated_at: at,
      pending_events: [],
    };
  });
}

/**
 * Writes `count` settled commissions (paid or voided: no job picks them up) into commission's db,
 * counted in the affiliate's and merchant's `commission_stats` as a settled reservation leaves
 * them (each carries a mark, so the stats backfill does not count them again).
 */
export function seedCommissions(db: Db, target: SeedTarget, opts: SeedOptions): Promise<void> {
  const counted = async (rows: Record<string, unknown>[]) => {
    const paid = rows
      .filter((r) => r.state === 'paid')
      .reduce((sum, r) => sum + (r.amount as number), 0);
    // commissionFigures (commission service): a paid one counts as paid and total, a voided none.
    const $inc = { 'currencies.USD.paid': paid, 'currencies.USD.total': paid };
    const stats: [string, string][] = [
      ['affiliate_commission_stats', target.affiliateId],
      ['merchant_commission_stats', target.merchantId],
    ];
    await Promise.all(
      stats.map(([collection, id]) =>
        db
          .collection<{ _id: string }>(collection)
          .updateOne({ _id: id, merchant_id: target.merchantId }, { $inc }, { upsert: true }),
      ),
    );
  };
  const mark = randomUUID();
  return seed(db, 'commissions', 'commission_counts', target.merchantId, opts, counted, (i, at) => {
    const paid = i % 10 !== 0;
    return {
      _id: randomUUID(),
      merchant_id: target.merchantId,
      sale_id: randomUUID(),
      referral_id: randomUUID(),
      affiliate_id: target.affiliateId,
      campaign: {
        id: target.campaignId,
        name: 'Default',
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      },
      base_amount: 1_000,
      amount: 1_000,
      currency: 'USD',
      state: paid ? 'paid' : 'voided',
      due_at: at,
      paid_at: paid ? at : null,
      voided_at: paid ? null : at,
      payout_id: paid ? randomUUID() : null,
      created_at: at,
      updated_at: at,
      stats_marks: [mark],
      pending_events: [],
    };
  });
}

async function seed(
  db: Db,
  collection: string,
  countCollection: string,
  merchantId: string,
  opts: SeedOptions,
  counted: (rows: Record<string, unknown>[]) => Promise<void>,
  make: (i: number, at: Date) => Record<string, unknown>,
): Promise<void> {
  const batch = opts.batch ?? 5_000;
  const newest = (opts.newest ?? new Date()).getTime();
  const docs = db.collection(collection);
  const counts = db.collection<{ _id: string; count: number }>(countCollection);
  const writeBatch = async (from: number, n: number) => {
    // Oldest first, as history is written.
    const rows = Array.from({ length: n }, (_, k) => {
      const i = from + k;
      return make(i, new Date(newest - (opts.count - i)));
    });
    await docs.insertMany(rows as never[], { ordered: false });
    // The count and the newest ids in one update, as `MerchantCounts.added` writes them.
    await counts.updateOne(
      { _id: merchantId },
      {
        $inc: { count: n },
        $push: {
          newest: {
            $each: rows.map((r) => ({ at: r.created_at as Date, id: r._id as string })),
            $sort: { at: -1, id: -1 },
            $slice: NEWEST_KEPT,
          },
        },
      } as never,
      { upsert: true },
    );
    await counted(rows);
  };
  // Batches in flight together, as concurrent writers (replicas, intake batches) write: the
  // counts are `$inc`s and a sorted, sliced `$push`, so their order does not matter.
  const inFlight = Math.max(1, opts.inFlight ?? 2);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < opts.count) {
      const from = next;
      const n = Math.min(batch, opts.count - from);
      next += n;
      await writeBatch(from, n);
      done += n;
      opts.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
