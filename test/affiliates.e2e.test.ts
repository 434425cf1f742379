/** Affiliates through the real gateway, over real NATS, into a real MongoDB-protocol server. */
import { InvalidRequestError, NotFoundError, type OperationInput } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';

const AFFILIATE_KEYS = [
  'id',
  'created_at',
  'updated_at',
  'state',
  'first_name',
  'last_name',
  'email',
  'confirmed_at',
  'unconfirmed_email',
  'wallet_a_email',
  'wallet_a_email_confirmed_at',
  'unconfirmed_wallet_a_email',
  'wallet_b_email',
  'wallet_b_email_confirmed_at',
  'unconfirmed_wallet_b_email',
  'receive_new_commission_notifications',
  'sign_in_count',
  'processor_customer_id',
  'processor_account_id',
  'visitors',
  'leads',
  'conversions',
];
const PAGINATION_KEYS = [
  'previous_page',
  'current_page',
  'next_page',
  'count',
  'limit',
  'total_pages',
  'total_count',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let seq = 0;
const uniqueEmail = () => `aff${Date.now()}${++seq}@example.com`;

describe('POST /v1/affiliates', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it('creates an affiliate with the spec fields, defaults, default campaign and first link', async () => {
    const email = uniqueEmail();
    const a = await merchantClient(merchant.api_secret).affiliates.create({
      first_name: 'Jane',
      last_name: 'Doe',
      email,
    });
    for (const key of AFFILIATE_KEYS) expect(a).toHaveProperty(key);
    expect(a.id).toMatch(UUID);
    expect(a.created_at).toMatch(ISO);
    expect(a.updated_at).toMatch(ISO);
    expect(a).toMatchObject({
      state: 'active',
      first_name: 'Jane',
      last_name: 'Doe',
      email,
      unconfirmed_email: null,
      wallet_a_email: null,
      wallet_a_email_confirmed_at: null,
      unconfirmed_wallet_a_email: null,
      wallet_b_email: null,
      wallet_b_email_confirmed_at: null,
      unconfirmed_wallet_b_email: null,
      receive_new_commission_notifications: true,
      sign_in_count: 0,
      processor_customer_id: null,
      processor_account_id: null,
      visitors: 0,
      leads: 0,
      conversions: 0,
    });
    // Created through the API: no e-mail confirmation needed.
    expect(a.confirmed_at).toMatch(ISO);
    expect(a.campaign).toMatchObject({
      name: 'Default campaign',
      default: true,
      commission_percent: 20,
    });
    expect(a.campaign!.id).toMatch(UUID);
    expect(a.links).toHaveLength(1);
    const [link] = a.links!;
    expect(link).toMatchObject({ visitors: 0, leads: 0, conversions: 0, affiliate_id: a.id });
    expect(link!.token).toMatch(/^[A-Za-z0-9-]+$/);
    expect(link!.url).toContain(`via=${link!.token}`);
  });

  // Form-encoded on purpose (the spec's request format); the typed client sends JSON.
  it('accepts every optional parameter of the spec, form-encoded', async () => {
    const client = api(merchant.api_secret);
    const campaign = await client.post('/v1/campaigns', {
      name: 'Partners',
      url: 'https://shop.example.com/start',
    });
    expect(campaign.status).toBe(200);
    const email = uniqueEmail();
    const res = await client.post('/v1/affiliates', {
      first_name: 'Cus',
      last_name: 'Tomer',
      email,
      state: 'suspicious',
      processor_customer_id: `cus_${seq}`,
      token: `cus-token-${seq}`,
      campaign_id: campaign.body.id,
      wallet_a_email: 'wa@example.com',
      wallet_b_email: 'wb@example.com',
      receive_new_commission_notifications: 'false',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'suspicious',
      processor_customer_id: `cus_${seq}`,
      wallet_a_email: 'wa@example.com',
      wallet_b_email: 'wb@example.com',
      receive_new_commission_notifications: false,
      campaign: { id: campaign.body.id, name: 'Partners' },
    });
    expect(res.body.links[0].token).toBe(`cus-token-${seq}`);
    expect(res.body.links[0].url).toBe(`https://shop.example.com/start?via=cus-token-${seq}`);
  });

  it('accepts a JSON body too (as the typed client sends it)', async () => {
    const created = await merchantClient(merchant.api_secret).affiliates.create({
      first_name: 'Json',
      last_name: 'Body',
      email: uniqueEmail(),
      receive_new_commission_notifications: false,
    });
    expect(created.receive_new_commission_notifications).toBe(false);
  });

  it.each([
    ['first_name', "First name can't be blank"],
    ['last_name', "Last name can't be blank"],
    ['email', "Email can't be blank"],
  ])('answers 422 with details when %s is missing', async (field, message) => {
    const body: Record<string, string> = { first_name: 'A', last_name: 'B', email: uniqueEmail() };
    delete body[field];
    const error = await rejection(
      merchantClient(merchant.api_secret).affiliates.create(
        body as unknown as OperationInput<'createAffiliate'>,
      ),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.status).toBe(422);
    expect(error.body).toEqual({ error: 'Could not create affiliate.', details: [message] });
  });

  it('lists every blank required field at once', async () => {
    const error = await rejection(
      merchantClient(merchant.api_secret).affiliates.create({
        first_name: '  ',
      } as OperationInput<'createAffiliate'>),
    );
    expect(error.status).toBe(422);
    expect(error.body).toEqual({
      error: 'Could not create affiliate.',
      details: ["First name can't be blank", "Last name can't be blank", "Email can't be blank"],
    });
  });

  it('rejects a token with characters other than letters, numbers and dashes', async () => {
    const error = await rejection(
      merchantClient(merchant.api_secret).affiliates.create({
        first_name: 'A',
        last_name: 'B',
        email: uniqueEmail(),
        token: 'no spaces!',
      }),
    );
    expect(error.status).toBe(422);
    expect(error.error).toBe('Could not create affiliate.');
    expect(error.details).toEqual(['Token may only contain letters, numbers and dashes']);
  });

  it('rejects an invalid e-mail, state and unknown campaign', async () => {
    const client = merchantClient(merchant.api_secret);
    const error = await rejection(
      client.affiliates.create({
        first_name: 'A',
        last_name: 'B',
        email: 'not-an-email',
        state: 'sleeping',
      } as unknown as OperationInput<'createAffiliate'>),
    );
    expect(error.status).toBe(422);
    expect(error.details).toEqual(['Email is invalid', 'State is not included in the list']);
    const unknownCampaign = await rejection(
      client.affiliates.create({
        first_name: 'A',
        last_name: 'B',
        email: uniqueEmail(),
        campaign_id: '00000000-0000-4000-8000-000000000000',
      }),
    );
    expect(unknownCampaign.status).toBe(422);
    expect(unknownCampaign.body).toEqual({
      error: 'Could not create affiliate.',
      details: ['Campaign does not exist'],
    });
  });

  it('rejects a duplicate e-mail (any case) and a duplicate token, changing nothing', async () => {
    const client = merchantClient(merchant.api_secret);
    const email = uniqueEmail();
    const token = `dup-${seq}`;
    await client.affiliates.create({ first_name: 'A', last_name: 'B', email, token });
    const sameEmail = await rejection(
      client.affiliates.create({ first_name: 'C', last_name: 'D', email: email.toUpperCase() }),
    );
    expect(sameEmail.status).toBe(422);
    expect(sameEmail.body).toEqual({
      error: 'Could not create affiliate.',
      details: ['Email has already been taken'],
    });
    const sameToken = await rejection(
      client.affiliates.create({ first_name: 'C', last_name: 'D', email: uniqueEmail(), token }),
    );
    expect(sameToken.status).toBe(422);
    expect(sameToken.details).toEqual(['Token has already been taken']);
    const list = await client.affiliates.list({ email });
    expect(list.pagination.total_count).toBe(1);
  });
});

describe('GET /v1/affiliates', () => {
  let merchant: TestMerchant;
  const created: any[] = [];
  let campaignId: string;

  beforeAll(async () => {
    merchant = await createMerchant();
    const client = api(merchant.api_secret);
    campaignId = (
      await client.post('/v1/campaigns', { name: 'Second', url: 'https://example.org/' })
    ).body.id;
    for (let i = 0; i < 5; i++) {
      const res = await client.post('/v1/affiliates', {
        first_name: `N${i}`,
        last_name: 'L',
        email: `list${i}-${merchant.merchant_id}@example.com`,
        ...(i === 2 ? { processor_customer_id: `cus_list_${merchant.merchant_id}` } : {}),
        ...(i >= 3 ? { campaign_id: campaignId } : {}),
      });
      expect(res.status).toBe(200);
      created.push(res.body);
    }
  });

  it('answers the envelope with exactly the seven pagination keys, newest first, across pages', async () => {
    const client = api(merchant.api_secret);
    const page1 = await client.get('/v1/affiliates?limit=2');
    expect(page1.status).toBe(200);
    expect(Object.keys(page1.body).sort()).toEqual(['data', 'pagination']);
    expect(Object.keys(page1.body.pagination).sort()).toEqual([...PAGINATION_KEYS].sort());
    expect(page1.body.pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: 2,
      count: 2,
      limit: 2,
      total_pages: 3,
      total_count: 5,
    });
    const newestFirst = [...created].reverse().map((a) => a.id);
    expect(page1.body.data.map((a: any) => a.id)).toEqual(newestFirst.slice(0, 2));
    const page3 = await client.get('/v1/affiliates?limit=2&page=3');
    expect(page3.body.pagination).toEqual({
      previous_page: 2,
      current_page: 3,
      next_page: null,
      count: 1,
      limit: 2,
      total_pages: 3,
      total_count: 5,
    });
    expect(page3.body.data.map((a: any) => a.id)).toEqual(newestFirst.slice(4));
    const all = await client.get('/v1/affiliates');
    expect(all.body.pagination.limit).toBe(25);
    expect(all.body.data.map((a: any) => a.id)).toEqual(newestFirst);
  });

  it('caps limit at 100 and rejects junk page values with 400', async () => {
    const client = api(merchant.api_secret);
    expect((await client.get('/v1/affiliates?limit=500')).body.pagination.limit).toBe(100);
    for (const bad of ['page=abc', 'page=0', 'limit=-1', 'page[]=1']) {
      const res = await client.get(`/v1/affiliates?${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: `${bad.split(/[[=]/)[0]} must be a positive whole number`,
      });
    }
  });

  it('checks the rest of the query before the service runs: one e-mail, known expansions', async () => {
    const client = api(merchant.api_secret);
    const twoEmails = await client.get(
      '/v1/affiliates?email[]=a@example.com&email[]=b@example.com',
    );
    expect(twoEmails.status).toBe(400);
    expect(twoEmails.body).toEqual({ error: 'email must be a single value' });
    const unknown = await client.get('/v1/affiliates?expand[]=links&expand[]=secrets');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: 'Unknown expand: secrets. Allowed: campaign, links, commission_stats',
    });
    // An empty value is no value.
    expect((await client.get('/v1/affiliates?email=&page=')).status).toBe(200);
  });

  it('filters by email (one or zero), processor_customer_id and campaign_id', async () => {
    const client = api(merchant.api_secret);
    const byEmail = await client.get(
      `/v1/affiliates?email=${encodeURIComponent(created[1].email)}`,
    );
    expect(byEmail.body.data.map((a: any) => a.id)).toEqual([created[1].id]);
    const none = await client.get('/v1/affiliates?email=nobody%40example.com');
    expect(none.body.data).toEqual([]);
    expect(none.body.pagination.total_count).toBe(0);
    const byCustomer = await client.get(
      `/v1/affiliates?processor_customer_id=cus_list_${merchant.merchant_id}`,
    );
    expect(byCustomer.body.data.map((a: any) => a.id)).toEqual([created[2].id]);
    const byCampaign = await client.get(`/v1/affiliates?campaign_id=${campaignId}`);
    expect(byCampaign.body.data.map((a: any) => a.id)).toEqual([created[4].id, created[3].id]);
  });

  it('shows campaign, links and commission_stats only when expanded', async () => {
    const client = api(merchant.api_secret);
    const plain = await client.get('/v1/affiliates?limit=1');
    expect(plain.body.data[0]).not.toHaveProperty('campaign');
    expect(plain.body.data[0]).not.toHaveProperty('links');
    expect(plain.body.data[0]).not.toHaveProperty('commission_stats');

    const one = await client.get('/v1/affiliates?limit=1&expand=campaign');
    expect(one.body.data[0].campaign).toMatchObject({ id: campaignId, name: 'Second' });
    expect(one.body.data[0]).not.toHaveProperty('links');

    const several = await client.get(
      '/v1/affiliates?limit=1&expand[]=links&expand[]=commission_stats',
    );
    const item = several.body.data[0];
    expect(item).not.toHaveProperty('campaign');
    expect(item.links).toHaveLength(1);
    expect(item.links[0].url).toBe(`https://example.org/?via=${item.links[0].token}`);
    expect(item.commission_stats).toEqual({ currencies: {} });

    const unknown = await client.get('/v1/affiliates?expand=secrets');
    expect(unknown.status).toBe(400);
  });
});

describe('GET and PUT /v1/affiliates/:id', () => {
  let merchant: TestMerchant;
  let affiliate: any;
  beforeAll(async () => {
    merchant = await createMerchant();
    affiliate = await merchantClient(merchant.api_secret).affiliates.create({
      first_name: 'Get',
      last_name: 'Me',
      email: uniqueEmail(),
    });
  });

  it('retrieves the affiliate with its campaign and links', async () => {
    const got = await merchantClient(merchant.api_secret).affiliates.get({ id: affiliate.id });
    expect(got).toEqual(affiliate);
  });

  it('answers 404 with the spec body for a missing or malformed id', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    const client = merchantClient(merchant.api_secret);
    const error = await rejection(client.affiliates.get({ id }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.body).toEqual({ error: `Affiliate not found: ${id}` });
    const junk = await rejection(client.affiliates.get({ id: 'not-a-uuid' }));
    expect(junk).toBeInstanceOf(NotFoundError);
    expect(junk.body).toEqual({ error: 'Affiliate not found: not-a-uuid' });
  });

  it('updates fields, keeps the e-mail until confirmed, and validates', async () => {
    const client = merchantClient(merchant.api_secret);
    const newEmail = uniqueEmail();
    const updated = await client.affiliates.update({
      id: affiliate.id,
      first_name: 'Got',
      state: 'disabled',
      wallet_a_email: 'pay@example.com',
      email: newEmail,
    });
    expect(updated).toMatchObject({
      id: affiliate.id,
      first_name: 'Got',
      last_name: 'Me',
      state: 'disabled',
      // A new wallet waits for confirmation by the account mailbox (wallet-confirmation test).
      wallet_a_email: null,
      unconfirmed_wallet_a_email: 'pay@example.com',
      email: affiliate.email,
      unconfirmed_email: newEmail,
    });
    expect(new Date(updated.updated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(affiliate.updated_at).getTime(),
    );
    const bad = await rejection(
      client.affiliates.update({
        id: affiliate.id,
        first_name: '',
        state: 'nope',
      } as unknown as OperationInput<'updateAffiliate'>),
    );
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      error: 'Could not update affiliate.',
      details: ["First name can't be blank", 'State is not included in the list'],
    });
    const after = await client.affiliates.get({ id: affiliate.id });
    expect(after.first_name).toBe('Got');
    const missing = await rejection(
      client.affiliates.update({ id: '22222222-2222-4222-8222-222222222222', first_name: 'X' }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});

describe('tenant isolation', () => {
  it('never shows one merchant the records of another', async () => {
    const [a, b] = await Promise.all([createMerchant(), createMerchant()]);
    const email = uniqueEmail();
    const created = await api(a.api_secret).post('/v1/affiliates', {
      first_name: 'Mine',
      last_name: 'Only',
      email,
    });
    expect(created.status).toBe(200);
    const other = api(b.api_secret);
    expect((await other.get(`/v1/affiliates/${created.body.id}`)).status).toBe(404);
    expect(
      (await other.get(`/v1/affiliates?email=${encodeURIComponent(email)}`)).body.data,
    ).toEqual([]);
    expect((await other.get('/v1/affiliates')).body.pagination.total_count).toBe(0);
    expect((await other.get(`/v1/affiliate_links/${created.body.links[0].id}`)).status).toBe(404);
    expect((await other.get(`/v1/campaigns/${created.body.campaign.id}`)).status).toBe(404);
    expect(
      (await other.put(`/v1/affiliates/${created.body.id}`, { first_name: 'Stolen' })).status,
    ).toBe(404);
    // The same e-mail is free in another tenant.
    expect(
      (await other.post('/v1/affiliates', { first_name: 'Theirs', last_name: 'Too', email }))
        .status,
    ).toBe(200);
  });
});

describe('malformed input never causes a 5xx and changes nothing', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it.each([
    [
      'malformed JSON',
      { rawBody: '{"first_name": ', headers: { 'content-type': 'application/json' } },
      400,
    ],
    ['a JSON array', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }, 422],
    ['a JSON string', { rawBody: '"x"', headers: { 'content-type': 'application/json' } }, 400],
    [
      'nested form fields',
      {
        rawBody: 'first_name[a]=1&last_name[]=2&email=x%40y.zz',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      422,
    ],
    [
      'a body over 1 MB',
      {
        rawBody: `first_name=${'a'.repeat(1_100_000)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      413,
    ],
  ])('%s', async (_name, opts, status) => {
    const before = (await api(merchant.api_secret).get('/v1/affiliates')).body.pagination
      .total_count;
    const res = await request('POST', '/v1/affiliates', { secret: merchant.api_secret, ...opts });
    expect(res.status).toBe(status);
    expect(typeof res.body.error).toBe('string');
    const after = (await api(merchant.api_secret).get('/v1/affiliates')).body.pagination
      .total_count;
    expect(after).toBe(before);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await api(merchant.api_secret).get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found.' });
    const outside = await request('GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ error: 'Not found.' });
  });
});
