/**
 * The merchant count backfill over the real MongoDB-protocol server: referral history counted in
 * the affiliates' documents before the merchant's document existed is added to it once, exactly,
 * also while referrals are being written; a merchant with a reservation in flight waits; a
 * document that counts more than its affiliates' is left alone; passes stop an hour after one
 * found nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import {
  MerchantCounts,
  NewestList,
  TenantRepository,
  connectMongo,
  merchantCountsModel,
} from '@aff/mongo';
import { countInserts } from '../src/data/count-inserts';
import { MerchantCountsBackfill } from '../src/data/merchant-counts-backfill';
import { ReferralRepository } from '../src/data/referral.repository';
import { referralModel, type ReferralDocument } from '../src/data/referral.schema';
import { ReferralTallies, STALE_MS, type Reservation } from '../src/data/referral-tallies';
import { tallyModels, type TallyDoc, type TallyModels } from '../src/data/referral-tally.schema';
import { TallySweep } from '../src/data/tally-sweep';
import type { ReferralRecord } from '../src/domain/records';

let mongo: Connection;
let model: Model<ReferralDocument>;
let tallies: TallyModels;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `merchant_backfill_test_${Date.now()}`);
  model = referralModel(mongo);
  tallies = tallyModels(mongo);
  await Promise.all([model, ...Object.values(tallies)].map((m) => m.init()));
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

/** Tracking's referral writes with their counts (a process that dies before settling, if asked). */
function writer(opts: { dieBeforeSettle?: boolean } = {}) {
  const counted = new ReferralTallies(tallies, async () => undefined);
  const reserve = async (...args: Parameters<ReferralTallies['reserve']>) => {
    const reservation = await counted.reserve(...args);
    if (!reservation || !opts.dieBeforeSettle) return reservation;
    const dead: Reservation = Object.create(reservation);
    dead.settle = async () => undefined;
    return dead;
  };
  const counts = new MerchantCounts(merchantCountsModel(mongo, 'referral_counts'), 1_000);
  const referrals = new ReferralRepository(
    new TenantRepository(model, { counts, countBatch: countInserts({ reserve }) }),
    new NewestList(model, counts),
    { reserve },
  );
  const later = () => new Date(Date.now() + STALE_MS + 1_000);
  const sweep = new TallySweep(counted, (m, ids) => referrals.marksOf(m, ids), later);
  return { referrals, sweep };
}

function aReferral(merchantId: string, affiliateId: string, lead = false): ReferralRecord {
  const id = randomUUID();
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    link_id: null,
    affiliate_id: affiliateId,
    campaign_id: 'c1',
    coupon_id: null,
    visits: 1,
    email: null,
    customer: null,
    processor_customer_id: null,
    customer_key: `none:${id}`,
    processor_account_id: null,
    conversion_state: lead ? 'lead' : 'visitor',
    became_lead_at: lead ? now : null,
    became_conversion_at: null,
    expires_at: new Date(now.getTime() + 86_400_000),
    deactivated_at: null,
    landing_url: null,
    referrer: null,
    created_at: now,
    updated_at: now,
  };
}

/** An affiliate's count document as written before the merchant's existed. */
const history = (merchantId: string, affiliateId: string, v: number, l: number, c: number) =>
  tallies.affiliate.collection.insertOne({
    _id: affiliateId,
    merchant_id: merchantId,
    visitors: v,
    leads: l,
    conversions: c,
    pending: [],
  } as never);

async function counts(target: keyof TallyModels, id: string) {
  const doc = await tallies[target].findById(id).lean<TallyDoc>().exec();
  return doc && { v: doc.visitors ?? 0, l: doc.leads ?? 0, c: doc.conversions ?? 0 };
}

const aMerchant = () => ({
  merchant: `m_${randomUUID()}`,
  a: `a_${randomUUID()}`,
  b: `a_${randomUUID()}`,
});

it('adds the history its affiliates counted before the merchant document, once', async () => {
  const { merchant, a, b } = aMerchant();
  await history(merchant, a, 10, 4, 1);
  await history(merchant, b, 5, 0, 0);
  const { referrals } = writer();
  // Traffic after the upgrade: counted in both documents (the merchant's is created now).
  await referrals.insertIfAbsent(aReferral(merchant, a, true));
  expect(await counts('merchant', merchant)).toEqual({ v: 1, l: 1, c: 0 });

  const backfill = new MerchantCountsBackfill(tallies);
  expect((await backfill.run()).raised).toBeGreaterThanOrEqual(1);
  expect(await counts('merchant', merchant)).toEqual({ v: 16, l: 5, c: 1 });
  await backfill.run();
  expect(await counts('merchant', merchant)).toEqual({ v: 16, l: 5, c: 1 });
  // Later traffic keeps it equal to the affiliates' sum.
  await referrals.insertIfAbsent(aReferral(merchant, b));
  await backfill.run();
  expect(await counts('merchant', merchant)).toEqual({ v: 17, l: 5, c: 1 });
});

it('creates the document of a merchant with only history', async () => {
  const { merchant, a, b } = aMerchant();
  await history(merchant, a, 3, 2, 1);
  await history(merchant, b, 4, 0, 0);
  await new MerchantCountsBackfill(tallies).run();
  expect(await counts('merchant', merchant)).toEqual({ v: 7, l: 2, c: 1 });
  // A reservation after it adds to the inserted document as to any.
  await writer().referrals.insertIfAbsent(aReferral(merchant, a));
  expect(await counts('merchant', merchant)).toEqual({ v: 8, l: 2, c: 1 });
});

it('waits while a reservation is pending, and counts it exactly once it is settled', async () => {
  const { merchant, a } = aMerchant();
  await history(merchant, a, 6, 1, 0);
  const dying = writer({ dieBeforeSettle: true });
  await dying.referrals.insertIfAbsent(aReferral(merchant, a));
  const backfill = new MerchantCountsBackfill(tallies, () => new Date(), 1);
  expect((await backfill.run()).busy).toBeGreaterThanOrEqual(1);
  expect(await counts('merchant', merchant)).toEqual({ v: 0, l: 0, c: 0 });

  await dying.sweep.run(); // settles the dead writer's reservation from the referral's marks
  await backfill.run();
  expect(await counts('affiliate', a)).toEqual({ v: 7, l: 1, c: 0 });
  expect(await counts('merchant', merchant)).toEqual({ v: 7, l: 1, c: 0 });
});

it('adds nothing twice when referrals are counted while it reads the affiliates', async () => {
  const { merchant, a } = aMerchant();
  await history(merchant, a, 20, 0, 0);
  const { referrals } = writer();
  await referrals.insertIfAbsent(aReferral(merchant, a));
  // Between its read of the merchant document and its read of the affiliates', a batch is
  // written and settled on both: the affiliates' sum has it, the document read does not.
  let fired = false;
  const affiliate = new Proxy(tallies.affiliate, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (prop !== 'find' || fired) return typeof value === 'function' ? value.bind(target) : value;
      fired = true;
      return (filter: object, fields: object) => ({
        lean: () => ({
          cursor: () =>
            (async function* () {
              await referrals.insertIfAbsent(aReferral(merchant, a, true));
              yield* target.find(filter, fields).lean<TallyDoc>().cursor();
            })(),
        }),
      });
    },
  });
  const backfill = new MerchantCountsBackfill({ ...tallies, affiliate }, () => new Date(), 1);
  await backfill.run();
  expect(fired).toBe(true);
  expect(await counts('affiliate', a)).toEqual({ v: 22, l: 1, c: 0 });
  expect(await counts('merchant', merchant)).toEqual({ v: 22, l: 1, c: 0 });
});

it('leaves alone a merchant document that counts more than its affiliates', async () => {
  const { merchant, a } = aMerchant();
  await history(merchant, a, 3, 0, 0);
  await tallies.merchant.collection.insertOne({
    _id: merchant,
    merchant_id: merchant,
    visitors: 50,
    leads: 0,
    conversions: 0,
    pending: [],
  } as never);
  expect((await new MerchantCountsBackfill(tallies).run()).ahead).toBeGreaterThanOrEqual(1);
  expect(await counts('merchant', merchant)).toEqual({ v: 50, l: 0, c: 0 });
});

it('stops passing an hour after a pass found nothing to do', async () => {
  const settled = new MerchantCountsBackfill(tallies);
  expect(await settled.run()).toEqual({ raised: 0, busy: 0, ahead: expect.any(Number) });
  const { merchant, a } = aMerchant();
  await history(merchant, a, 9, 0, 0);
  const inTwoHours = new MerchantCountsBackfill(tallies, () => new Date(Date.now() + 7_200_000));
  expect(await inTwoHours.run()).toEqual({ raised: 0, busy: 0, ahead: 0 });
  expect(await counts('merchant', merchant)).toBeNull();
  // Within the hour it still finds new history (a rolling upgrade's old replicas).
  await new MerchantCountsBackfill(tallies).run();
  expect(await counts('merchant', merchant)).toEqual({ v: 9, l: 0, c: 0 });
});
