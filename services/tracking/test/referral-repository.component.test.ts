/**
 * The referral repository over the real MongoDB-protocol server: it relays the events of its
 * own writes, lists new referrals at once (newest first, counted), and reports a processor
 * customer already attributed to another referral as the domain's `DuplicateError`. An
 * update's events are relayed only after its count reservation is settled.
 */
import { randomUUID } from 'node:crypto';
import { buildEvent } from '@aff/contracts';
import type { PendingEvent } from '@aff/messaging';
import { MerchantCounts, NewestList, TenantRepository, merchantCountsModel } from '@aff/mongo';
import { Reservation } from '../src/data/referral-reservation';
import { ReferralRepository } from '../src/data/referral.repository';
import { DuplicateError } from '../src/domain/ports';
import { customerKey } from '../src/domain/records';
import { referralRecord, referralStorePerFile } from './support/referral-store';

let referrals: ReferralRepository;
let counts: MerchantCounts;
const relayed: PendingEvent[] = [];
const merchant = `m_${randomUUID()}`;

const store = referralStorePerFile('referral_repo_test', { tallies: false });

beforeAll(async () => {
  counts = new MerchantCounts(merchantCountsModel(store.mongo, 'referral_counts'), 1_000);
  referrals = new ReferralRepository(
    new TenantRepository(store.model, {
      counts,
      relay: { relay: (pending) => void relayed.push(...pending) },
    }),
    new NewestList(store.model, counts),
    { reserve: async () => null },
  );
});
/** A lead's referral of `merchant` attributed to processor customer `customerId`. */
const aReferral = (customerId: string) =>
  referralRecord(merchant, {
    processor_customer_id: customerId,
    customer_key: customerKey(customerId),
    lead: true,
  });

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
    new TenantRepository(store.model, {
      relay: {
        relay: (pending) => void order.push(...pending.map((p) => `relayed:${p.event.id}`)),
      },
    }),
    new NewestList(store.model, counts),
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
