/** `GET /v1/referrals` with every filter of the spec, through the real gateway. */
import { api, request } from './support/http';
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
  await request('POST', '/t/v1/leads', {
    json: { key: merchant.public_key, referral: ids.lead, email: 'Lead.Person@example.com' },
  });
  customer = await referredCustomer(merchant, a);
  await new Promise((r) => setTimeout(r, 20));
  betweenLeadAndConversion = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  await charge(merchant, customer.customerId, { amount: 1000 });
  await eventually(async () => {
    const r = await api(merchant.api_secret).get(`/v1/referrals/${customer.referralId}`);
    return r.body.conversion_state === 'conversion' ? true : undefined;
  });
});

const list = async (query: string) => {
  const res = await api(merchant.api_secret).get(`/v1/referrals?${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((r: any) => r.id) as string[];
};

it('lists newest first and filters by affiliate_id', async () => {
  expect(await list('')).toEqual([customer.referralId, ids.lead, ids.otherAffiliate, ids.visitor]);
  expect(await list(`affiliate_id=${b.id}`)).toEqual([ids.otherAffiliate]);
});

it('filters by conversion_state and conversion_state[]', async () => {
  expect(await list('conversion_state=visitor')).toEqual([ids.otherAffiliate, ids.visitor]);
  expect(await list('conversion_state[]=lead&conversion_state[]=conversion')).toEqual([
    customer.referralId,
    ids.lead,
  ]);
  expect((await api(merchant.api_secret).get('/v1/referrals?conversion_state=buyer')).status).toBe(
    400,
  );
});

it('filters by email (any case) and processor_customer_id', async () => {
  expect(await list('email=lead.person%40example.com')).toEqual([ids.lead]);
  expect(await list(`email=${encodeURIComponent(customer.email.toUpperCase())}`)).toEqual([
    customer.referralId,
  ]);
  expect(await list(`processor_customer_id=${customer.customerId}`)).toEqual([customer.referralId]);
  expect(await list('processor_customer_id=cus_nobody')).toEqual([]);
});

it('filters by updated_since and updated_until, alone or as a range', async () => {
  expect(await list(`updated_since=${encodeURIComponent(betweenLeadAndConversion)}`)).toEqual([
    customer.referralId,
  ]);
  const until = await list(`updated_until=${encodeURIComponent(betweenLeadAndConversion)}`);
  expect(until).toEqual([ids.lead, ids.otherAffiliate, ids.visitor]);
  const range = await list(
    `updated_since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&updated_until=${encodeURIComponent(betweenLeadAndConversion)}`,
  );
  expect(range).toEqual(until);
  expect((await api(merchant.api_secret).get('/v1/referrals?updated_since=yesterday')).status).toBe(
    400,
  );
});

it('pages with the spec envelope and expands the affiliate', async () => {
  const res = await api(merchant.api_secret).get('/v1/referrals?limit=3&page=2&expand=affiliate');
  expect(res.body.pagination).toEqual({
    previous_page: 1,
    current_page: 2,
    next_page: null,
    count: 1,
    limit: 3,
    total_pages: 2,
    total_count: 4,
  });
  expect(res.body.data[0]).toMatchObject({
    id: ids.visitor,
    affiliate: { id: a.id, email: a.email },
  });
  const plain = await api(merchant.api_secret).get('/v1/referrals?limit=1');
  expect(plain.body.data[0]).not.toHaveProperty('affiliate');
});

it('never shows another merchant the referrals', async () => {
  const other = await createMerchant();
  expect((await api(other.api_secret).get('/v1/referrals')).body.data).toEqual([]);
  expect((await api(other.api_secret).get(`/v1/referrals/${ids.visitor}`)).status).toBe(404);
});
