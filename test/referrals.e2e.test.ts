/** `GET /v1/referrals` with every filter of the spec, through the real gateway. */
import { InvalidRequestError, NotFoundError, type OperationInput } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { charge, createAffiliate, referredCustomer, visitOf } from './support/journey';

let merchant: TestMerchant;
let a: any;
let b: any;
const ids: Record<string, string> = {};
let customer: { referralId: string; customerId: string; email: string };
let betweenLeadAndConversion: string;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  a = await createAffiliate(merchant);
  b = await createAffiliate(merchant);
  ids.visitor = await visitOf(merchant, a.links[0].token);
  ids.otherAffiliate = await visitOf(merchant, b.links[0].token);
  ids.lead = await visitOf(merchant, a.links[0].token);
  // Public tracking (`/t/v1`, public key) is not part of the merchant client.
  await request('POST', '/t/v1/leads', {
    json: { key: merchant.public_key, referral: ids.lead, email: 'Lead.Person@example.com' },
  });
  customer = await referredCustomer(merchant, a);
  await new Promise((r) => setTimeout(r, 20));
  betweenLeadAndConversion = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  await charge(merchant, customer.customerId, { amount: 1000 });
  await eventually(async () => {
    const r = await merchantClient(merchant.api_secret).referrals.get({ id: customer.referralId });
    return r.conversion_state === 'conversion' ? true : undefined;
  });
});

const list = async (query: OperationInput<'listReferrals'> = {}) => {
  const res = await merchantClient(merchant.api_secret).referrals.list(query);
  return res.data.map((r) => r.id);
};

/** The typed error a list with a bad filter is answered with (400, spec error body). */
const badList = async (query: OperationInput<'listReferrals'>) => {
  const error = await rejection(merchantClient(merchant.api_secret).referrals.list(query));
  expect(error).toBeInstanceOf(InvalidRequestError);
  return error.status;
};

it('lists newest first and filters by affiliate_id', async () => {
  expect(await list()).toEqual([customer.referralId, ids.lead, ids.otherAffiliate, ids.visitor]);
  expect(await list({ affiliate_id: b.id })).toEqual([ids.otherAffiliate]);
});

it('filters by conversion_state and conversion_state[]', async () => {
  expect(await list({ conversion_state: 'visitor' })).toEqual([ids.otherAffiliate, ids.visitor]);
  expect(await list({ 'conversion_state[]': ['lead', 'conversion'] })).toEqual([
    customer.referralId,
    ids.lead,
  ]);
  expect(await badList({ conversion_state: 'buyer' })).toBe(400);
});

it('filters by email (any case) and processor_customer_id', async () => {
  expect(await list({ email: 'lead.person@example.com' })).toEqual([ids.lead]);
  expect(await list({ email: customer.email.toUpperCase() })).toEqual([customer.referralId]);
  expect(await list({ processor_customer_id: customer.customerId })).toEqual([customer.referralId]);
  expect(await list({ processor_customer_id: 'cus_nobody' })).toEqual([]);
});

it('filters by updated_since and updated_until, alone or as a range', async () => {
  expect(await list({ updated_since: betweenLeadAndConversion })).toEqual([customer.referralId]);
  const until = await list({ updated_until: betweenLeadAndConversion });
  expect(until).toEqual([ids.lead, ids.otherAffiliate, ids.visitor]);
  const range = await list({
    updated_since: new Date(Date.now() - 3_600_000).toISOString(),
    updated_until: betweenLeadAndConversion,
  });
  expect(range).toEqual(until);
  expect(await badList({ updated_since: 'yesterday' })).toBe(400);
});

it('pages with the spec envelope and expands the affiliate', async () => {
  const client = merchantClient(merchant.api_secret);
  const res = await client.referrals.list({ limit: 3, page: 2, expand: 'affiliate' });
  expect(res.pagination).toEqual({
    previous_page: 1,
    current_page: 2,
    next_page: null,
    count: 1,
    limit: 3,
    total_pages: 2,
    total_count: 4,
  });
  expect(res.data[0]).toMatchObject({
    id: ids.visitor,
    affiliate: { id: a.id, email: a.email },
  });
  const plain = await client.referrals.list({ limit: 1 });
  expect(plain.data[0]).not.toHaveProperty('affiliate');
});

it('never shows another merchant the referrals', async () => {
  const other = await createMerchant();
  const client = merchantClient(other.api_secret);
  expect((await client.referrals.list()).data).toEqual([]);
  const error = await rejection(client.referrals.get({ id: ids.visitor }));
  expect(error).toBeInstanceOf(NotFoundError);
  expect(error.status).toBe(404);
});
