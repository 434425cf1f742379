/**
 * Tracking's referral data layer in its component tests, over the real MongoDB-protocol server:
 * a database of the test file's own, tracking's referral writes with their counts, and a
 * referral record to write.
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
import { countInserts } from '../../src/data/count-inserts';
import { ReferralRepository } from '../../src/data/referral.repository';
import { referralModel, type ReferralDocument } from '../../src/data/referral.schema';
import { STALE_MS, type ReferralTallies, type Reservation } from '../../src/data/referral-tallies';
import { tallyModels, type TallyModels } from '../../src/data/referral-tally.schema';
import { TallySweep } from '../../src/data/tally-sweep';
import type { ReferralRecord } from '../../src/domain/records';

export interface ReferralStore {
  mongo: Connection;
  model: Model<ReferralDocument>;
  tallies: TallyModels;
}

/**
 * A database named `<name>_<time>`, with the referral and tally models' indexes built, opened
 * before the file's tests and dropped after them. The fields are set by that `beforeAll`, so read
 * them inside tests and hooks. `tallies: false` builds only the referrals' indexes.
 */
export function referralStorePerFile(
  name: string,
  opts: { tallies?: boolean } = {},
): ReferralStore {
  const store = {} as ReferralStore;
  beforeAll(async () => {
    store.mongo = await connectMongo(process.env.MONGO_URL!, `${name}_${Date.now()}`);
    store.model = referralModel(store.mongo);
    if (opts.tallies === false) {
      await store.model.init();
      return;
    }
    store.tallies = tallyModels(store.mongo);
    await Promise.all([store.model, ...Object.values(store.tallies)].map((m) => m.init()));
  });
  afterAll(async () => {
    await store.mongo.dropDatabase();
    await store.mongo.close();
  });
  return store;
}

/**
 * Tracking's referral writes with their counts in `counted` (a process that dies before settling
 * its reservations, if asked), and the sweep that settles what such a process left, run as if an
 * hour had passed.
 */
export function countedWriter(
  store: ReferralStore,
  counted: ReferralTallies,
  opts: { dieBeforeSettle?: boolean } = {},
) {
  const reserve = async (...args: Parameters<ReferralTallies['reserve']>) => {
    const reservation = await counted.reserve(...args);
    if (!reservation || !opts.dieBeforeSettle) return reservation;
    const dead: Reservation = Object.create(reservation);
    dead.settle = async () => undefined;
    return dead;
  };
  const counts = new MerchantCounts(merchantCountsModel(store.mongo, 'referral_counts'), 1_000);
  const referrals = new ReferralRepository(
    new TenantRepository(store.model, { counts, countBatch: countInserts({ reserve }) }),
    new NewestList(store.model, counts),
    { reserve },
  );
  const later = () => new Date(Date.now() + STALE_MS + 1_000);
  const sweep = new TallySweep(counted, (m, ids) => referrals.marksOf(m, ids), later);
  return { referrals, sweep };
}

/** A visitor's referral (a lead's, if asked) made now, with no link, coupon or customer unless given. */
export function referralRecord(
  merchantId: string,
  { lead = false, ...fields }: { lead?: boolean } & Partial<ReferralRecord> = {},
): ReferralRecord {
  const id = randomUUID();
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    link_id: null,
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
    ...fields,
  };
}
