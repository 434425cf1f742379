/**
 * Tracking's referral data layer in its component tests, over the real MongoDB-protocol server:
 * a database of the test file's own, tracking's referral writes with their counts, and a
 * referral record to write.
 */
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
import { newReferral } from '../../src/domain/new-referral';
import type { ReferralRecord } from '../../src/domain/records';
import { affiliateView, campaignView } from '../../../../test/support/view-fixtures';

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

/**
 * A visitor's referral (a lead's, if asked) made now, as tracking makes one (`newReferral`): of
 * affiliate `a1` and campaign `c1` (its referrals expire in a day), with no link, coupon or
 * customer unless given.
 */
export function referralRecord(
  merchantId: string,
  { lead = false, ...fields }: { lead?: boolean } & Partial<ReferralRecord> = {},
): ReferralRecord {
  const now = new Date();
  const campaign = campaignView({ id: 'c1', days_before_referrals_expire: 1 });
  const affiliate = affiliateView({ id: 'a1' });
  return newReferral(merchantId, { link: null, affiliate, campaign }, now, {
    conversion_state: lead ? 'lead' : 'visitor',
    became_lead_at: lead ? now : null,
    ...fields,
  });
}
