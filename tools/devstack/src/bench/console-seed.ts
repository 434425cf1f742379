/**
 * The console bench's merchant: the first affiliates created through the REST API (the
 * affiliate service writes them, their links and events itself), the rest copied from the
 * newest of those as the service stores them (an `affiliates` document and its link in
 * `affiliate_links`, no events pending; the affiliate list counts with countDocuments, so no
 * count document is kept). Then a referral and commission history written as the services write
 * it (../scale/history-seed.ts) spread over some of the API's affiliates, and a share of the
 * referrals flagged and held for review, as the fraud checks leave them.
 */
import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import { seedCommissions, seedReferrals, type SeedTarget } from '../scale/history-seed';
import type { BenchMerchant } from './money-bench';

/** A spread of first names, so a name search matches some affiliates and not others. */
const FIRST_NAMES = ['Ada', 'Bram', 'Chloé', 'Dmitri', 'Eun-ji', 'Farah', 'Gus', 'Hana', 'Ivo'];
const LAST_NAMES = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Silva', 'Novak', 'Quinn'];

export interface ConsoleSeed {
  affiliates: number;
  /** Of which created through the API (the rest copied, see above). */
  throughApi: number;
  referrals: number;
  commissions: number;
  flagged: number;
  /** An affiliate with referrals and commissions, and its campaign. */
  affiliateId: string;
  campaignId: string;
  /** Seconds each part took. */
  seconds: { affiliates: number; referrals: number; commissions: number };
}

export interface ConsoleSeedOptions {
  affiliates: number;
  referrals: number;
  commissions: number;
  /** Affiliates created through the API (default 200); the rest are copied. */
  throughApi?: number;
  /** Affiliates the referrals and commissions are spread over. */
  withHistory?: number;
  /** Referrals flagged (a quarter of them approved, the rest waiting for a decision). */
  flagged?: number;
  concurrency?: number;
  log?: (line: string) => void;
}

export async function seedConsoleMerchant(
  gatewayUrl: string,
  db: { affiliate: mongo.Db; tracking: mongo.Db; commission: mongo.Db },
  merchant: BenchMerchant,
  opts: ConsoleSeedOptions,
): Promise<ConsoleSeed> {
  const log = opts.log ?? (() => undefined);
  const withHistory = Math.max(1, Math.min(opts.withHistory ?? 20, opts.affiliates));
  const throughApi = Math.max(withHistory, Math.min(opts.throughApi ?? 200, opts.affiliates));
  let started = Date.now();
  const targets = await createAffiliates(gatewayUrl, merchant, throughApi, opts, withHistory, log);
  await copyAffiliates(db.affiliate, merchant.merchant_id, throughApi, opts.affiliates);
  log(
    `  affiliates: ${opts.affiliates - throughApi} more copied in ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
  );
  const affiliateSeconds = (Date.now() - started) / 1000;

  started = Date.now();
  const per = (total: number, i: number) =>
    Math.floor(total / withHistory) + (i < total % withHistory ? 1 : 0);
  for (const [i, target] of targets.entries()) {
    await seedReferrals(db.tracking, target, { count: per(opts.referrals, i) });
  }
  const flagged = await flagSome(db.tracking, merchant.merchant_id, opts.flagged ?? 500);
  const referralSeconds = (Date.now() - started) / 1000;
  log(`  referrals: ${opts.referrals} (${flagged} flagged) in ${referralSeconds.toFixed(0)} s`);

  started = Date.now();
  for (const [i, target] of targets.entries()) {
    await seedCommissions(db.commission, target, { count: per(opts.commissions, i) });
  }
  await setOverviewCounters(db, merchant.merchant_id, opts.affiliates, targets);
  const commissionSeconds = (Date.now() - started) / 1000;
  log(`  commissions: ${opts.commissions} in ${commissionSeconds.toFixed(0)} s`);
  return {
    affiliates: opts.affiliates,
    throughApi,
    referrals: opts.referrals,
    commissions: opts.commissions,
    flagged,
    affiliateId: targets[0]!.affiliateId,
    campaignId: targets[0]!.campaignId,
    seconds: {
      affiliates: affiliateSeconds,
      referrals: referralSeconds,
      commissions: commissionSeconds,
    },
  };
}

/** `POST /v1/affiliates` from a few workers; the first `withHistory` become seed targets. */
async function createAffiliates(
  gatewayUrl: string,
  merchant: BenchMerchant,
  count: number,
  opts: ConsoleSeedOptions,
  withHistory: number,
  log: (line: string) => void,
): Promise<SeedTarget[]> {
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  const targets: SeedTarget[] = [];
  const started = Date.now();
  let next = 0;
  let shown = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const res = await fetch(`${gatewayUrl}/v1/affiliates`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          first_name: `${FIRST_NAMES[i % FIRST_NAMES.length]}${i}`,
          last_name: LAST_NAMES[i % LAST_NAMES.length],
          email: `console-bench-${i}@example.com`,
        }),
      });
      const body = (await res.json()) as {
        id: string;
        campaign: { id: string };
        links: { id: string }[];
      };
      if (res.status !== 200)
        throw new Error(`affiliate ${i}: ${res.status} ${JSON.stringify(body)}`);
      if (i < withHistory) {
        targets.push({
          merchantId: merchant.merchant_id,
          affiliateId: body.id,
          campaignId: body.campaign.id,
          linkId: body.links[0]!.id,
        });
      }
      const done = next;
      if (done - shown >= 100) {
        shown = done;
        const seconds = (Date.now() - started) / 1000;
        log(`  affiliates: ${done} in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)}/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  const seconds = (Date.now() - started) / 1000;
  log(
    `  affiliates: ${count} through the API in ${seconds.toFixed(0)} s (${(count / seconds).toFixed(1)}/s)`,
  );
  return targets;
}

/**
 * Affiliates `from` .. `to - 1` as copies of the newest affiliate (and its link) the service
 * wrote: new ids, names, e-mails, tokens; created before it, one second apart, as a program
 * that grew over time. Unordered `insertMany` batches.
 */
async function copyAffiliates(db: mongo.Db, merchantId: string, from: number, to: number) {
  const affiliates = db.collection<{ _id: string }>('affiliates');
  const links = db.collection<{ _id: string }>('affiliate_links');
  const template = await affiliates
    .find({ merchant_id: merchantId })
    .sort({ created_at: -1 })
    .limit(1)
    .next();
  if (!template) throw new Error('no affiliate to copy');
  const link = await links.findOne({ merchant_id: merchantId, affiliate_id: template._id });
  if (!link) throw new Error('the copied affiliate has no link');
  const oldest = (template as unknown as { created_at: Date }).created_at.getTime() - 60_000;
  for (let start = from; start < to; start += 2_000) {
    const rows = Array.from({ length: Math.min(2_000, to - start) }, (_, k) => {
      const i = start + k;
      const id = randomUUID();
      const at = new Date(oldest - (to - i) * 1_000);
      return {
        affiliate: {
          ...template,
          _id: id,
          first_name: `${FIRST_NAMES[i % FIRST_NAMES.length]}${i}`,
          last_name: LAST_NAMES[i % LAST_NAMES.length]!,
          email: `console-bench-${i}@example.com`,
          customer_key: `none:${id}`,
          created_at: at,
          updated_at: at,
          pending_events: [],
        },
        link: {
          ...link,
          _id: randomUUID(),
          affiliate_id: id,
          token: `bench-${i}-${id.slice(0, 8)}`,
          created_at: at,
          updated_at: at,
          pending_events: [],
        },
      };
    });
    await affiliates.insertMany(
      rows.map((r) => r.affiliate),
      { ordered: false },
    );
    await links.insertMany(
      rows.map((r) => r.link),
      { ordered: false },
    );
  }
}

/**
 * The counters the overview reads, as their owners would have them after this history: the
 * affiliate service's count by state (every seeded affiliate is active) and, on each affiliate
 * with history, its referral counters (tracking's `affiliate_counts`, which the seed raised) and
 * `commission_stats` of its seeded commissions (paid ones; voided ones count nowhere).
 * Tracking's merchant document is raised by seedReferrals itself.
 */
async function setOverviewCounters(
  db: { affiliate: mongo.Db; tracking: mongo.Db; commission: mongo.Db },
  merchantId: string,
  affiliates: number,
  targets: SeedTarget[],
): Promise<void> {
  await db.affiliate
    .collection<{ _id: string }>('affiliate_state_counts')
    .updateOne(
      { _id: merchantId },
      { $set: { active: affiliates, disabled: 0, suspicious: 0 } },
      { upsert: true },
    );
  const counts = db.tracking.collection<{
    _id: string;
    visitors?: number;
    leads?: number;
    conversions?: number;
  }>('affiliate_counts');
  const commissions = db.commission.collection('commissions');
  for (const { affiliateId } of targets) {
    const c = await counts.findOne({ _id: affiliateId });
    const paid = await commissions.countDocuments({
      merchant_id: merchantId,
      affiliate_id: affiliateId,
      state: 'paid',
    });
    const usd = (cents: number) => ({ cents, currency_iso: 'USD' });
    const stats = {
      unpaid: usd(0),
      due: usd(0),
      paid: usd(paid * 1_000),
      total: usd(paid * 1_000),
      gross_revenue: usd(0),
      net_revenue: usd(0),
    };
    await db.affiliate.collection<{ _id: string }>('affiliates').updateOne(
      { _id: affiliateId, merchant_id: merchantId },
      {
        $set: {
          visitors: c?.visitors ?? 0,
          leads: c?.leads ?? 0,
          conversions: c?.conversions ?? 0,
          commission_stats: paid > 0 ? { currencies: { USD: stats } } : { currencies: {} },
        },
      },
    );
  }
}

/**
 * Flags some of the newest leads as the fraud checks do (a signal, `flagged`, and for a held
 * one `review_state: 'open'`); a quarter of them as already approved.
 */
async function flagSome(db: mongo.Db, merchantId: string, count: number): Promise<number> {
  const referrals = db.collection<{ _id: string }>('referrals');
  const ids = (
    await referrals
      .find({ merchant_id: merchantId, conversion_state: 'lead' }, { projection: { _id: 1 } })
      .limit(count)
      .toArray()
  ).map((r) => r._id);
  const at = new Date();
  const signal = {
    type: 'self_referral_email',
    detected_at: at.toISOString(),
    detail: "The customer's e-mail is the affiliate's.",
  };
  const approved = ids.slice(0, Math.floor(ids.length / 4));
  const open = ids.slice(approved.length);
  const flag = (state: string, reviewed: Date | null) => ({
    $set: { fraud_signals: [signal], flagged: true, review_state: state, reviewed_at: reviewed },
  });
  await referrals.updateMany({ _id: { $in: open } }, flag('open', null));
  await referrals.updateMany({ _id: { $in: approved } }, flag('approved', at));
  return ids.length;
}
