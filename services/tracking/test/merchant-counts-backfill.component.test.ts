/**
 * The merchant count backfill over the real MongoDB-protocol server: referral history counted in
 * the affiliates' documents before the merchant's document existed is added to it once, exactly,
 * also while referrals are being written; a merchant with a reservation in flight waits; a
 * document that counts more than its affiliates' is left alone; passes stop an hour after one
 * found nothing.
 */
import { randomUUID } from 'node:crypto';
import { MerchantCountsBackfill } from '../src/data/merchant-counts-backfill';
import { ReferralTallies } from '../src/data/referral-tallies';
import type { TallyDoc, TallyModels } from '../src/data/referral-tally.schema';
import { countedWriter, referralRecord, referralStorePerFile } from './support/referral-store';

const store = referralStorePerFile('merchant_backfill_test');

/** Tracking's referral writes with their counts (a process that dies before settling, if asked). */
const writer = (opts: { dieBeforeSettle?: boolean } = {}) =>
  countedWriter(store, new ReferralTallies(store.tallies, async () => undefined), opts);

const aReferral = (merchantId: string, affiliateId: string, lead = false) =>
  referralRecord(merchantId, { affiliate_id: affiliateId, lead });

/** An affiliate's count document as written before the merchant's existed. */
const history = (merchantId: string, affiliateId: string, v: number, l: number, c: number) =>
  store.tallies.affiliate.collection.insertOne({
    _id: affiliateId,
    merchant_id: merchantId,
    visitors: v,
    leads: l,
    conversions: c,
    pending: [],
  } as never);

async function counts(target: keyof TallyModels, id: string) {
  const doc = await store.tallies[target].findById(id).lean<TallyDoc>().exec();
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

  const backfill = new MerchantCountsBackfill(store.tallies);
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
  await new MerchantCountsBackfill(store.tallies).run();
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
  const backfill = new MerchantCountsBackfill(store.tallies, () => new Date(), 1);
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
  const affiliate = new Proxy(store.tallies.affiliate, {
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
  const backfill = new MerchantCountsBackfill({ ...store.tallies, affiliate }, () => new Date(), 1);
  await backfill.run();
  expect(fired).toBe(true);
  expect(await counts('affiliate', a)).toEqual({ v: 22, l: 1, c: 0 });
  expect(await counts('merchant', merchant)).toEqual({ v: 22, l: 1, c: 0 });
});

it('leaves alone a merchant document that counts more than its affiliates', async () => {
  const { merchant, a } = aMerchant();
  await history(merchant, a, 3, 0, 0);
  await store.tallies.merchant.collection.insertOne({
    _id: merchant,
    merchant_id: merchant,
    visitors: 50,
    leads: 0,
    conversions: 0,
    pending: [],
  } as never);
  expect((await new MerchantCountsBackfill(store.tallies).run()).ahead).toBeGreaterThanOrEqual(1);
  expect(await counts('merchant', merchant)).toEqual({ v: 50, l: 0, c: 0 });
});

it('stops passing an hour after a pass found nothing to do', async () => {
  const settled = new MerchantCountsBackfill(store.tallies);
  expect(await settled.run()).toEqual({ raised: 0, busy: 0, ahead: expect.any(Number) });
  const { merchant, a } = aMerchant();
  await history(merchant, a, 9, 0, 0);
  const inTwoHours = new MerchantCountsBackfill(
    store.tallies,
    () => new Date(Date.now() + 7_200_000),
  );
  expect(await inTwoHours.run()).toEqual({ raised: 0, busy: 0, ahead: 0 });
  expect(await counts('merchant', merchant)).toBeNull();
  // Within the hour it still finds new history (a rolling upgrade's old replicas).
  await new MerchantCountsBackfill(store.tallies).run();
  expect(await counts('merchant', merchant)).toEqual({ v: 9, l: 0, c: 0 });
});
