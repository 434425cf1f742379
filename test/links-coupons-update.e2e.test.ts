/**
 * The surface existing clients expect, part 1: `PUT /v1/affiliate_links/:id` (and what tracking
 * makes of a changed token) and `GET /v1/affiliate_coupons/:id` with `token` / `external_id`.
 */
import { randomUUID } from 'node:crypto';
import { api, request } from './support/http';
import { findEvents } from './support/events';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';
import { createAffiliate, visitOf } from './support/journey';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

function visit(token: string) {
  return request('POST', '/t/v1/visits', { json: { key: merchant.public_key, token } });
}

describe('PUT /v1/affiliate_links/:id', () => {
  it('changes the token: the new one is attributed to the link, the old one no longer resolves', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant, { token: unique('old') });
    const link = affiliate.links[0];
    const oldToken: string = link.token;
    // The old token is known to tracking (and held in its in-memory catalog) before the change.
    await visitOf(merchant, oldToken);

    const newToken = unique('new');
    const updated = await client.put(`/v1/affiliate_links/${link.id}`, { token: newToken });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: link.id,
      token: newToken,
      affiliate_id: affiliate.id,
    });
    expect(new URL(updated.body.url).searchParams.get('via')).toBe(newToken);
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThan(Date.parse(link.updated_at));
    expect((await client.get(`/v1/affiliate_links/${link.id}`)).body).toEqual(updated.body);

    const [published] = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate_link.updated',
      (e) => e.data.id === link.id,
    );
    expect(published?.event.data).toEqual(updated.body);

    const viaNew = await eventually(async () => {
      const res = await visit(newToken);
      return res.status === 200 ? res.body : undefined;
    });
    expect(viaNew.affiliate.id).toBe(affiliate.id);
    const referral = (await client.get(`/v1/referrals/${viaNew.referral.id}`)).body;
    expect(referral.link).toMatchObject({ id: link.id, token: newToken });

    const viaOld = await eventually(async () => {
      const res = await visit(oldToken);
      return res.status === 404 ? res : undefined;
    });
    expect(viaOld.body.error).toMatch(/not found/i);
    // And it stays gone (no stale copy brings it back).
    expect((await visit(oldToken)).status).toBe(404);
  });

  it('frees the old token for another link, which tracking then attributes to the new holder', async () => {
    const client = api(merchant.api_secret);
    const first = await createAffiliate(merchant, { token: unique('freed') });
    const second = await createAffiliate(merchant);
    const freed: string = first.links[0].token;
    await visitOf(merchant, freed);
    expect(
      (await client.put(`/v1/affiliate_links/${first.links[0].id}`, { token: unique('moved') }))
        .status,
    ).toBe(200);
    const taken = await client.post('/v1/affiliate_links', {
      affiliate_id: second.id,
      token: freed,
    });
    expect(taken.status).toBe(200);
    const viaFreed = await eventually(async () => {
      const res = await visit(freed);
      return res.status === 200 && res.body.affiliate.id === second.id ? res.body : undefined;
    });
    expect(viaFreed.affiliate.id).toBe(second.id);
  });

  it('validates like create: a taken token, bad characters and a bad url get 422', async () => {
    const client = api(merchant.api_secret);
    const mine = await createAffiliate(merchant);
    const other = await createAffiliate(merchant);
    const path = `/v1/affiliate_links/${mine.links[0].id}`;

    const taken = await client.put(path, { token: other.links[0].token });
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({
      error: 'Could not update affiliate link.',
      details: ['Token has already been taken'],
    });
    // The same detail as create gives for a taken token.
    const createTaken = await client.post('/v1/affiliate_links', {
      affiliate_id: mine.id,
      token: other.links[0].token,
    });
    expect(createTaken.body.details).toEqual(taken.body.details);

    const bad = await client.put(path, { token: 'no spaces' });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual(['Token may only contain letters, numbers and dashes']);
    const long = await client.put(path, { token: 'x'.repeat(65) });
    expect(long.body.details).toEqual(['Token is too long (maximum is 64 characters)']);
    const badUrl = await client.put(path, { url: 'ftp://example.com/' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.details).toEqual(['Url must be an absolute http(s) URL']);
    const notObject = await client.putJson(path, ['token']);
    expect(notObject.status).toBe(422);

    // Nothing changed.
    expect((await client.get(path)).body.token).toBe(mine.links[0].token);
    // Its own token again is not "taken".
    expect((await client.put(path, { token: mine.links[0].token })).status).toBe(200);
  });

  it('sets a landing page of its own (via=<token> kept), and blank goes back to the campaign URL', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const path = `/v1/affiliate_links/${affiliate.links[0].id}`;
    const token = affiliate.links[0].token;
    const landing = await client.put(path, { url: 'https://shop.example.com/landing?x=1' });
    expect(landing.status).toBe(200);
    expect(landing.body.url).toBe(`https://shop.example.com/landing?x=1&via=${token}`);
    const renamed = await client.put(path, { token: `${token}-2` });
    expect(renamed.body.url).toBe(`https://shop.example.com/landing?x=1&via=${token}-2`);
    const cleared = await client.put(path, { url: '' });
    expect(cleared.body.url).toBe(affiliate.links[0].url.replace(`via=${token}`, `via=${token}-2`));
  });

  it("answers 404 for an unknown id, a malformed id and another merchant's link", async () => {
    const client = api(merchant.api_secret);
    const unknown = '99999999-9999-4999-8999-999999999999';
    const res = await client.put(`/v1/affiliate_links/${unknown}`, { token: 'whatever' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Affiliate link not found: ${unknown}` });
    expect((await client.put('/v1/affiliate_links/not-a-uuid', { token: 'x' })).status).toBe(404);

    const affiliate = await createAffiliate(merchant);
    const other = await createMerchant({ rateLimit: 100_000 });
    const foreign = await api(other.api_secret).put(
      `/v1/affiliate_links/${affiliate.links[0].id}`,
      { token: unique('stolen') },
    );
    expect(foreign.status).toBe(404);
    expect((await client.get(`/v1/affiliate_links/${affiliate.links[0].id}`)).body.token).toBe(
      affiliate.links[0].token,
    );
  });
});

describe('affiliate coupons: token and external_id', () => {
  it('creates with token / external_id, shows them, and retrieves by id', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const token = unique('SAVE');
    const created = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token,
      external_id: 'co_ext_1',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      token,
      external_id: 'co_ext_1',
      affiliate_id: affiliate.id,
      campaign_id: affiliate.campaign.id,
    });
    // The spec does not show the coupon record; the older names are input-only aliases.
    expect(created.body).not.toHaveProperty('code');
    expect(created.body).not.toHaveProperty('processor_coupon_id');

    const retrieved = await client.get(`/v1/affiliate_coupons/${created.body.id}`);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual(created.body);

    const taken = await client.post('/v1/affiliate_coupons', { affiliate_id: affiliate.id, token });
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({
      error: 'Could not create affiliate coupon.',
      details: ['Token has already been taken'],
    });
    const blank = await client.post('/v1/affiliate_coupons', { affiliate_id: affiliate.id });
    expect(blank.body).toEqual({
      error: 'Could not create affiliate coupon.',
      details: ["Token can't be blank"],
    });
  });

  it('still accepts code / processor_coupon_id on input', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const code = unique('OLD');
    const created = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      code,
      processor_coupon_id: 'co_old',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ token: code, external_id: 'co_old' });
    // Taken under either name.
    const again = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token: code,
    });
    expect(again.body.details).toEqual(['Token has already been taken']);
  });

  it('attributes a customer who used the coupon token to its affiliate', async () => {
    const affiliate = await createAffiliate(merchant);
    const token = unique('TOK');
    await api(merchant.api_secret).post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token,
    });
    const customerId = `cus_${randomUUID()}`;
    const referral = await eventually(async () => {
      await sendProcessorEvent(merchant, 'customer.created', {
        id: customerId,
        email: `${randomUUID()}@example.com`,
        metadata: { coupon: token },
      });
      const res = await api(merchant.api_secret).get(
        `/v1/referrals?processor_customer_id=${customerId}&expand=affiliate`,
      );
      return res.body.data[0];
    });
    expect(referral.affiliate.id).toBe(affiliate.id);
  });

  it("answers 404 for an unknown coupon and another merchant's", async () => {
    const client = api(merchant.api_secret);
    const unknown = '99999999-9999-4999-8999-999999999999';
    const res = await client.get(`/v1/affiliate_coupons/${unknown}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Affiliate coupon not found: ${unknown}` });
    expect((await client.get('/v1/affiliate_coupons/nope')).status).toBe(404);
    const affiliate = await createAffiliate(merchant);
    const coupon = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token: unique('MINE'),
    });
    const other = await createMerchant();
    const foreign = await api(other.api_secret).get(`/v1/affiliate_coupons/${coupon.body.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: `Affiliate coupon not found: ${coupon.body.id}` });
  });
});
