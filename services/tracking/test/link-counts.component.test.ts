/**
 * Stored link counts over the real MongoDB-protocol server: a batch of inserted referrals raises
 * each link once per new referral (a duplicate is not counted, a coupon referral born a lead
 * counts its lead), a step to lead or conversion counts only when its conditional write applied,
 * and a new instance (a restart) reads the counts without reading any referral.
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
import { StoredLinkCounts, linkCountsModel } from '../src/data/link-counts';
import { ReferralRepository } from '../src/data/referral.repository';
import { referralModel, type ReferralDocument } from '../src/data/referral.schema';
import type { ReferralRecord } from '../src/domain/records';

let mongo: Connection;
let model: Model<ReferralDocument>;
let counts: StoredLinkCounts;
let referrals: ReferralRepository;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `link_counts_test_${Date.now()}`);
  model = referralModel(mongo);
  await model.init();
  counts = new StoredLinkCounts(linkCountsModel(mongo));
  const merchantCounts = new MerchantCounts(merchantCountsModel(mongo, 'referral_counts'), 1_000);
  referrals = new ReferralRepository(
    new TenantRepository(model, {
      counts: merchantCounts,
      alsoCount: (inserted) => counts.added(inserted),
    }),
    { relay: () => undefined },
    new NewestList(model, merchantCounts),
    counts,
  );
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

function aReferral(merchantId: string, linkId: string, lead = false): ReferralRecord {
  const id = randomUUID();
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    link_id: linkId,
    affiliate_id: 'a1',
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

it('counts inserted batches per link, once per new referral', async () => {
  const merchant = `m_${randomUUID()}`;
  const [a, b] = [`l_${randomUUID()}`, `l_${randomUUID()}`];
  const batch = [aReferral(merchant, a), aReferral(merchant, a), aReferral(merchant, b, true)];
  // Written together: one insertMany, and its increments in the same flush.
  const results = await Promise.all([
    ...batch.map((r) => referrals.insertIfAbsent(r)),
    referrals.insertIfAbsent(batch[0]!), // a redelivered visit: a duplicate, not counted
  ]);
  expect(results.filter(Boolean)).toHaveLength(3);
  expect(await counts.get(merchant, a)).toEqual({ visitors: 2, leads: 0, conversions: 0 });
  expect(await counts.get(merchant, b)).toEqual({ visitors: 1, leads: 1, conversions: 0 });
  // Another merchant reading the same link id sees nothing.
  expect(await counts.get(`m_${randomUUID()}`, a)).toEqual({
    visitors: 0,
    leads: 0,
    conversions: 0,
  });
});

it('counts a step only when its conditional write applied, and survives a restart', async () => {
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const referral = aReferral(merchant, link);
  await referrals.insertWithEvents(referral, [], {});
  const step = () =>
    referrals.updateWithEvents(
      merchant,
      referral._id,
      { became_lead_at: new Date(), conversion_state: 'lead' },
      [],
      {},
      {
        expected: { became_lead_at: null },
        linkCounts: { linkId: link, delta: { leads: 1 } },
      },
    );
  expect(await step()).toBe(true);
  expect(await step()).toBe(false); // the race's loser: no second lead
  expect(await counts.get(merchant, link)).toEqual({ visitors: 1, leads: 1, conversions: 0 });

  // A restart reads the stored counts; no referral is read (they are gone here).
  await model.deleteMany({ merchant_id: merchant });
  const restarted = new StoredLinkCounts(linkCountsModel(mongo));
  expect(await restarted.get(merchant, link)).toEqual({ visitors: 1, leads: 1, conversions: 0 });
});
