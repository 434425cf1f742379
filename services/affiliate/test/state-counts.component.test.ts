/**
 * Over the real MongoDB-protocol server: the merchant's count of affiliates by state
 * (affiliate_state_counts), kept by the affiliate repository. The first read counts the
 * affiliates already there; inserts and state changes move it; of two changes made over the
 * same state only the one that applied moves it; a change of state that does not say which
 * state it replaces is refused (the count could not know what it left); other merchants apart.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { TenantRepository, connectMongo } from '@aff/mongo';
import { AffiliateRepository } from '../src/data/affiliate.repository';
import { affiliateModel, type AffiliateRecord } from '../src/data/affiliate.schema';
import { AffiliateStateCounts, affiliateStateCountModel } from '../src/data/affiliate-state-counts';

let mongo: Connection;
let affiliates: AffiliateRepository;
let counts: AffiliateStateCounts;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `affiliate_states_test_${Date.now()}`);
  const records = affiliateModel(mongo);
  await records.init();
  counts = new AffiliateStateCounts(affiliateStateCountModel(mongo), records);
  const relay = { relay: () => undefined };
  affiliates = new AffiliateRepository(new TenantRepository(records, { relay }), counts);
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

async function anAffiliate(merchantId: string, state: AffiliateRecord['state'] = 'active') {
  const id = randomUUID();
  const at = new Date();
  const record = {
    _id: id,
    merchant_id: merchantId,
    campaign_id: 'c1',
    state,
    first_name: 'A',
    last_name: 'B',
    email: `${id}@example.com`,
    confirmed_at: at,
    unconfirmed_email: null,
    wallet_a_email: null,
    wallet_a_email_confirmed_at: null,
    wallet_b_email: null,
    wallet_b_email_confirmed_at: null,
    receive_new_commission_notifications: true,
    sign_in_count: 0,
    processor_customer_id: null,
    customer_key: `none:${id}`,
    processor_account_id: null,
    visitors: 0,
    leads: 0,
    conversions: 0,
    created_at: at,
    updated_at: at,
  } as AffiliateRecord;
  await affiliates.insertWithEvents(record, [], {});
  return record;
}

const change = (a: AffiliateRecord, from: AffiliateRecord['state'], to: AffiliateRecord['state']) =>
  affiliates.updateWithEvents(a.merchant_id, a._id, { state: to }, [], {}, { state: from });

it('counts the affiliates there on the first read, then follows inserts and changes', async () => {
  const m = `m_${randomUUID()}`;
  const [a] = [await anAffiliate(m), await anAffiliate(m), await anAffiliate(m, 'disabled')];
  // Written before any read: no count document yet, the first read counts them once.
  expect(await counts.get(m)).toEqual({ active: 2, disabled: 1, suspicious: 0 });
  await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 3, disabled: 1, suspicious: 0 });
  expect(await change(a!, 'active', 'suspicious')).not.toBeNull();
  expect(await counts.get(m)).toEqual({ active: 2, disabled: 1, suspicious: 1 });
  expect(await counts.get(`m_${randomUUID()}`)).toEqual({ active: 0, disabled: 0, suspicious: 0 });
});

it('moves the count once when two changes race over the same state', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 1, disabled: 0, suspicious: 0 });
  const results = await Promise.all([
    change(a, 'active', 'disabled'),
    change(a, 'active', 'suspicious'),
  ]);
  expect(results.filter(Boolean)).toHaveLength(1);
  const won = results[0] ? 'disabled' : 'suspicious';
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 0, suspicious: 0, [won]: 1 });
});

it('refuses a change of state that does not say which state it replaces', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  await expect(
    affiliates.updateWithEvents(m, a._id, { state: 'disabled' }, [], {}),
  ).rejects.toThrow(/expect the state it replaces/);
  expect((await affiliates.findById(m, a._id))!.state).toBe('active');
});
