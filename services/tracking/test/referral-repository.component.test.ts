/**
 * The referral repository over the real MongoDB-protocol server: it relays the events of its
 * own writes, lists new referrals at once (newest first, counted), and reports a processor
 * customer already attributed to another referral as the domain's `DuplicateError`. An
 * update's events are relayed only after its count reservation is settled.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { buildEvent } from '@aff/contracts';
import type { PendingEvent } from '@aff/messaging';
import {
  MerchantCounts,
  NewestList,
  TenantRepository,
  connectMongo,
  merchantCountsModel,
} from '@aff/mongo';
import { Reservation } from '../src/data/referral-reservation';
import { ReferralRepository } from '../src/data/referral.repository';
import { referralModel } from '../src/data/referral.schema';
import { DuplicateError } from '../src/domain/ports';
import { customerKey, type ReferralRecord } from '../src/domain/records';

let mongo: Connection;
let referrals: ReferralRepository;
let model: ReturnType<typeof referralModel>;
let counts: MerchantCounts;
const relayed: PendingEvent[] = [];
const merchant = `m_${randomUUID()}`;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `referral_repo_test_${Date.now()}`);
  model = referralModel(mongo);
  await model.init();
  counts = new MerchantCounts(merchantCountsModel(mongo, 'referral_counts'), 1_000);
  referrals = new ReferralRepository(
    new TenantRepository(model, {
      counts,
      relay: { relay: (pending) => void relayed.push(...pending) },
    }),
    new NewestList(model, counts),
    { reserve: async () => null },
  );
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

function aReferral(customerId: string): ReferralRecord {
  const id = randomUUID();
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchant,
    link_id: null,
    affiliate_id: 'a1',
    campaign_id: 'c1',
    coupon_id: null,
    visits: 1,
    email: null,
    customer: null,
    processor_customer_id: customerId,
    customer_key: customerKey(customerId),
    processor_account_id: null,
    conversion_state: 'lead',
    became_lead_at: now,
    became_conversion_at: null,
    expires_at: new Date(now.getTime() + 86_400_000),
    deactivated_at: null,
    landing_url: null,
    referrer: null,
    created_at: now,
    updated_at: now,
  };
}

it('relays its writes, lists them at once, and maps a taken customer to DuplicateError', async () => {
  const first = aReferral('cus_1');
  const event = buildEvent('coupon_referral.updated', merchant, {
    coupon_id: 'k1',
    referral_id: first._id,
    lead: true,
    conversion: false,
  });
  await referrals.insertWithEvents(first, [event], {});
  expect(relayed.map((item) => item.event.id)).toEqual([event.id]);
  expect((await referrals.page(merchant, {}, 0, 10)).items.map((r) => r._id)).toEqual([first._id]);
  const second = aReferral('cus_2');
  await referrals.insertWithEvents(second, [], {});
  const listed = await referrals.page(merchant, {}, 0, 10);
  expect(listed.items.map((r) => r._id)).toEqual([second._id, first._id]);
  expect(listed.total).toBe(2);

  expect(
    await referrals.updateWithEvents(
      merchant,
      first._id,
      { email: 'x@example.com' },
      [],
      {},
      {
        expected: { became_conversion_at: null },
        addVisits: 1,
      },
    ),
  ).toBe(true);
  expect(await referrals.findByCustomer(merchant, 'cus_1')).toMatchObject({
    email: 'x@example.com',
    visits: 2,
  });
  expect(
    await referrals.updateWithEvents(
      merchant,
      first._id,
      { email: 'y@example.com' },
      [],
      {},
      {
        expected: { conversion_state: 'visitor' },
      },
    ),
  ).toBe(false);

  await expect(referrals.insertWithEvents(aReferral('cus_1'), [], {})).rejects.toBeInstanceOf(
    DuplicateError,
  );
});

it("relays an update's events only once its count reservation is settled", async () => {
  const order: string[] = [];
  // A reservation that only records when it is settled, and whether the write landed.
  const reservation: Reservation = Object.create(Reservation.prototype);
  reservation.marks = () => ({});
  reservation.settle = async (applied) => void order.push(`settled:${applied('any')}`);
  const own = new ReferralRepository(
    new TenantRepository(model, {
      relay: {
        relay: (pending) => void order.push(...pending.map((p) => `relayed:${p.event.id}`)),
      },
    }),
    new NewestList(model, counts),
    { reserve: async () => reservation },
  );
  const record = aReferral(`cus_${randomUUID()}`);
  await own.insertWithEvents(record, [], {});
  const event = buildEvent('coupon_referral.updated', merchant, {
    coupon_id: 'k1',
    referral_id: record._id,
    lead: true,
    conversion: false,
  });
  const change = { counts: { referral: record, delta: { visitors: 0, leads: 1, conversions: 0 } } };
  expect(await own.updateWithEvents(merchant, record._id, { visits: 2 }, [event], {}, change)).toBe(
    true,
  );
  expect(order).toEqual(['settled:true', `relayed:${event.id}`]);
  // A write that did not apply is settled as such and relays nothing.
  const missed = { ...change, expected: { conversion_state: 'visitor' as const } };
  expect(await own.updateWithEvents(merchant, record._id, { visits: 3 }, [event], {}, missed)).toBe(
    false,
  );
  expect(order).toEqual(['settled:true', `relayed:${event.id}`, 'settled:false']);
});
