/** Affiliate coupons, magic links, and the counters and statistics that follow from events. */
import { connect } from '@nats-io/transport-node';
import { OPERATIONS } from '@aff/contracts';
import { RpcClient, callInternal } from '@aff/messaging';
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';
import { portalRequest } from './support/portal';
import {
  charge,
  createAffiliate,
  referredCustomer,
  visitOf,
  waitForCommissions,
} from './support/journey';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

describe('/v1/affiliate_coupons', () => {
  it('creates coupons, lists them by affiliate, and validates', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const code = `SAVE-${Date.now()}`;
    const created = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      code,
      processor_coupon_id: 'co_1',
    });
    expect(created.status).toBe(200);
    // Sent under the older names (still accepted), shown as token / external_id.
    expect(created.body).toMatchObject({
      token: code,
      affiliate_id: affiliate.id,
      campaign_id: affiliate.campaign.id,
      external_id: 'co_1',
      leads: 0,
      conversions: 0,
      archived: false,
      archived_at: null,
    });
    const list = await client.get(`/v1/affiliate_coupons?affiliate_id=${affiliate.id}`);
    expect(list.body.pagination.total_count).toBe(1);
    expect(list.body.data[0]).toEqual(created.body);
    const dup = await client.post('/v1/affiliate_coupons', { affiliate_id: affiliate.id, code });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({
      error: 'Could not create affiliate coupon.',
      details: ['Token has already been taken'],
    });
    const bad = await client.post('/v1/affiliate_coupons', {
      affiliate_id: '77777777-7777-4777-8777-777777777777',
      code: 'no spaces',
    });
    expect(bad.body.details).toEqual([
      'Token may only contain letters, numbers, dashes and underscores',
    ]);
    const other = await createMerchant();
    expect((await api(other.api_secret).get('/v1/affiliate_coupons')).body.data).toEqual([]);
  });

  it('attributes a customer who used the coupon to its affiliate, and their charges earn', async () => {
    const affiliate = await createAffiliate(merchant);
    const code = `CODE${Date.now()}`;
    await api(merchant.api_secret).post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      code,
    });
    const customerId = `cus_coupon_${Date.now()}`;
    // Sent once, at once: a coupon the tracking service has not heard of yet (its event is on its
    // way) is looked up at the affiliate service, so the customer is attributed all the same.
    await sendProcessorEvent(merchant, 'customer.created', {
      id: customerId,
      email: 'buyer@example.com',
      name: 'Buy Er',
      metadata: { coupon: code },
    });
    const referral = await eventually(async () => {
      const res = await api(merchant.api_secret).get(
        `/v1/referrals?processor_customer_id=${customerId}&expand=affiliate`,
      );
      return res.body.data[0];
    });
    expect(referral).toMatchObject({
      conversion_state: 'lead',
      affiliate: { id: affiliate.id },
      link: { id: affiliate.links[0].id },
    });
    await charge(merchant, customerId, { amount: 5000 });
    const [commission] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    expect(commission.amount).toBe(1000);
    const coupon = await eventually(async () => {
      const res = await api(merchant.api_secret).get(
        `/v1/affiliate_coupons?affiliate_id=${affiliate.id}`,
      );
      return res.body.data[0]?.conversions === 1 ? res.body.data[0] : undefined;
    });
    expect(coupon).toMatchObject({ token: code, leads: 1, conversions: 1 });
  });
});

describe("the affiliate service's coupon look-up (internal, for tracking)", () => {
  it('answers a coupon code with its coupon and affiliate, and 404 for an unknown code', async () => {
    const affiliate = await createAffiliate(merchant);
    const code = `LOOKUP${Date.now()}`;
    const created = await api(merchant.api_secret).post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      code,
    });
    expect(created.status).toBe(200);
    const nc = await connect({ servers: process.env.NATS_URL });
    try {
      const rpc = new RpcClient(nc, 5_000);
      const resolve = (c: string) =>
        callInternal(
          rpc,
          OPERATIONS.resolveCouponCode,
          { merchant_id: merchant.merchant_id, code: c },
          'test',
        );
      expect(await resolve(code)).toMatchObject({
        coupon: { id: created.body.id, token: code, affiliate_id: affiliate.id },
        affiliate: { id: affiliate.id, campaign: { id: affiliate.campaign.id } },
      });
      await expect(resolve(`NOSUCH${Date.now()}`)).rejects.toMatchObject({ status: 404 });
    } finally {
      await nc.close();
    }
  });
});

describe('GET /v1/affiliates/:id/sso', () => {
  it('returns a one-minute link that works once, and a newer link kills older ones', async () => {
    const affiliate = await createAffiliate(merchant);
    const client = api(merchant.api_secret);
    const first = await client.get(`/v1/affiliates/${affiliate.id}/sso`);
    expect(first.status).toBe(200);
    expect(first.body.affiliate).toEqual({ id: affiliate.id, email: affiliate.email });
    expect(first.body.sso.url).toMatch(/\/portal\/sso\?token=[A-Za-z0-9_-]{40,}$/);
    const lifetime = new Date(first.body.sso.expires).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(50_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);

    const second = (await client.get(`/v1/affiliates/${affiliate.id}/sso`)).body;
    const path = (url: string) => url.slice(url.indexOf('/portal/'));
    expect((await request('GET', path(first.body.sso.url))).status).toBe(401);
    // The portal answers a good link with a session and a redirect (test/portal.e2e.test.ts).
    const used = await portalRequest(path(second.sso.url));
    expect(used.status).toBe(303);
    expect(used.location).toBe('/portal');
    expect((await request('GET', path(second.sso.url))).status).toBe(401);
    expect((await client.get(`/v1/affiliates/${affiliate.id}`)).body.sign_in_count).toBe(1);

    const missing = await client.get('/v1/affiliates/88888888-8888-4888-8888-888888888888/sso');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'Affiliate not found: 88888888-8888-4888-8888-888888888888',
    });
  });
});

describe('counters and commission_stats', () => {
  it('follow visits, leads, conversions and commissions', async () => {
    const affiliate = await createAffiliate(merchant);
    await visitOf(merchant, affiliate.links[0].token);
    const { customerId } = await referredCustomer(merchant, affiliate);
    await charge(merchant, customerId, { amount: 10_000, tax: 1000, currency: 'eur' });
    await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    const expected = { visitors: 2, leads: 1, conversions: 1 };
    const withStats = await eventually(async () => {
      const res = await api(merchant.api_secret).get(
        `/v1/affiliates?email=${encodeURIComponent(affiliate.email)}&expand[]=links&expand[]=commission_stats`,
      );
      const a = res.body.data[0];
      // Sale and commission events arrive separately: wait for both to be counted.
      return a.conversions === 1 && a.commission_stats.currencies.EUR?.total.cents === 1800
        ? a
        : undefined;
    });
    expect(withStats).toMatchObject(expected);
    expect(withStats.links[0]).toMatchObject(expected);
    const money = (cents: number) => ({ cents, currency_iso: 'EUR' });
    expect(withStats.commission_stats).toEqual({
      currencies: {
        EUR: {
          unpaid: money(1800),
          due: money(0),
          paid: money(0),
          total: money(1800),
          gross_revenue: money(10_000),
          net_revenue: money(9000),
        },
      },
    });
  });
});
