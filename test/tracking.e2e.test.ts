/** Visits, leads and processor customers through the real gateway, into referrals. */
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';

let merchant: TestMerchant;
let affiliate: any;
let seq = 0;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  affiliate = (
    await api(merchant.api_secret).post('/v1/affiliates', {
      first_name: 'Tracy',
      last_name: 'King',
      email: `tracy-${Date.now()}@example.com`,
      token: `tracy-${Date.now()}`,
    })
  ).body;
});

const visit = (body: Record<string, unknown>) =>
  request('POST', '/t/v1/visits', { json: { key: merchant.public_key, ...body } });

describe('POST /t/v1/visits', () => {
  it('creates a referral right after the affiliate was created, and counts repeat visits on it', async () => {
    const token = affiliate.links[0].token;
    const first = await visit({ token, url: 'https://example.com/?via=' + token });
    expect(first.status).toBe(200);
    expect(first.body.affiliate).toEqual({ id: affiliate.id, first_name: 'Tracy' });
    expect(first.body.referral.expires_at).toMatch(/^\d{4}-/);
    const days = (new Date(first.body.referral.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(59.9);
    expect(days).toBeLessThan(60.1);
    const again = await visit({ token, referral: first.body.referral.id });
    expect(again.body.referral.id).toBe(first.body.referral.id);
    const referral = (await api(merchant.api_secret).get(`/v1/referrals/${first.body.referral.id}`))
      .body;
    expect(referral).toMatchObject({
      visits: 2,
      conversion_state: 'visitor',
      customer: null,
      became_lead_at: null,
    });
    expect(referral.link).toEqual({
      id: affiliate.links[0].id,
      url: affiliate.links[0].url,
      token,
      visitors: 1,
      leads: 0,
      conversions: 0,
    });
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('rejects an unknown key (401), unknown token (404) and missing token (422)', async () => {
    const badKey = await request('POST', '/t/v1/visits', { json: { key: 'pk_nope', token: 'x' } });
    expect(badKey.status).toBe(401);
    expect(badKey.body).toEqual({ error: 'Invalid public key.' });
    const unknown = await visit({ token: 'no-such-token' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Link not found: no-such-token' });
    const missing = await visit({});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      error: 'Could not record visit.',
      details: ["Token can't be blank"],
    });
  });

  it('makes no referral for a disabled affiliate', async () => {
    const client = api(merchant.api_secret);
    const off = (
      await client.post('/v1/affiliates', {
        first_name: 'Off',
        last_name: 'Line',
        email: `off-${Date.now()}@example.com`,
        state: 'disabled',
      })
    ).body;
    const res = await visit({ token: off.links[0].token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ referral: null, affiliate: { id: off.id, first_name: 'Off' } });
  });

  it('serves the tracker script', async () => {
    const res = await fetch(`${process.env.GATEWAY_URL}/t/v1/tracker.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(await res.text()).toContain('/t/v1/visits');
  });
});

describe('leads and processor customers', () => {
  it('turns a visitor into a lead (idempotently) and attaches the processor customer', async () => {
    const token = affiliate.links[0].token;
    const referralId = (await visit({ token })).body.referral.id;
    const email = `lead-${++seq}-${Date.now()}@example.com`;
    const lead = await request('POST', '/t/v1/leads', {
      json: { key: merchant.public_key, referral: referralId, email },
    });
    expect(lead.status).toBe(200);
    // Answered like a visit: the referral and the affiliate's id and first name, nothing more.
    expect(lead.body).toEqual({
      referral: { id: referralId, expires_at: expect.stringMatching(/^\d{4}-/) },
      affiliate: { id: affiliate.id, first_name: affiliate.first_name },
    });
    const read = async () =>
      (await api(merchant.api_secret).get(`/v1/referrals/${referralId}`)).body;
    expect(await read()).toMatchObject({ conversion_state: 'lead' });
    const leadAt = (await read()).became_lead_at;
    expect(leadAt).toMatch(/^\d{4}-/);
    const again = await request('POST', '/t/v1/leads', {
      json: { key: merchant.public_key, referral: referralId, email },
    });
    expect(again.status).toBe(200);
    expect((await read()).became_lead_at).toBe(leadAt);

    const customerId = `cus_${referralId.slice(0, 8)}`;
    const hook = await sendProcessorEvent(merchant, 'customer.created', {
      id: customerId,
      email,
      name: 'Lee Ad',
      metadata: { referral: referralId },
    });
    expect(hook.status).toBe(200);
    const withCustomer = await eventually(async () => {
      const res = await api(merchant.api_secret).get(
        `/v1/referrals?processor_customer_id=${customerId}`,
      );
      return res.body.data.length === 1 ? res.body.data[0] : undefined;
    });
    expect(withCustomer).toMatchObject({
      id: referralId,
      conversion_state: 'lead',
      became_lead_at: leadAt,
      processor_customer_id: customerId,
      processor_account_id: 'acct_test',
      customer: { platform: 'processor', id: customerId, name: 'Lee Ad', email },
    });
  });

  it('rejects bad and stale signatures with 400 and changes nothing', async () => {
    const bad = await sendProcessorEvent(
      merchant,
      'customer.created',
      { id: 'cus_x' },
      { secret: 'whsec_wrong' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Invalid signature/);
    const stale = await sendProcessorEvent(
      merchant,
      'customer.created',
      { id: 'cus_x' },
      { timestamp: Math.floor(Date.now() / 1000) - 600 },
    );
    expect(stale.status).toBe(400);
    const unsigned = await request('POST', `/hooks/processor/${merchant.public_key}`, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(400);
    const unknownKey = await request('POST', '/hooks/processor/pk_unknown', { rawBody: '{}' });
    expect(unknownKey.status).toBe(404);
  });
});
