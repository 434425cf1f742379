/**
 * The surface existing clients expect, part 1: `PUT /v1/affiliate_links/:id` (and what tracking
 * makes of a changed token) and `GET /v1/affiliate_coupons/:id` with `token` / `external_id`.
 */
import { randomUUID } from 'node:crypto';
import { InvalidRequestError, NotFoundError, type OperationInput } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { request } from './support/http';
import { findEvents } from './support/events';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';
import { createAffiliate, visitOf } from './support/journey';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Public tracking (`/t/v1`, public key): not part of the merchant client, so the raw helper. */
function visit(token: string) {
  return request('POST', '/t/v1/visits', { json: { key: merchant.public_key, token } });
}

describe('PUT /v1/affiliate_links/:id', () => {
  it('changes the token: the new one is attributed to the link, the old one no longer resolves', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await createAffiliate(merchant, { token: unique('old') });
    const link = affiliate.links[0];
    const oldToken: string = link.token;
    // The old token is known to tracking (and held in its in-memory catalog) before the change.
    await visitOf(merchant, oldToken);
    // The link counts that visit behind the answer (tracking counts, the affiliate service
    // applies): once it has, the link's counters hold still while its update is compared below.
    await eventually(async () =>
      (await client.links.get({ id: link.id })).visitors === 1 ? true : undefined,
    );

    const newToken = unique('new');
    const updated = await client.links.update({ id: link.id, token: newToken });
    expect(updated).toMatchObject({
      id: link.id,
      token: newToken,
      affiliate_id: affiliate.id,
    });
    expect(new URL(updated.url).searchParams.get('via')).toBe(newToken);
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(link.updated_at));
    expect(await client.links.get({ id: link.id })).toEqual(updated);

    const [published] = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate_link.updated',
      (e) => e.data.id === link.id,
    );
    expect(published?.event.data).toEqual(updated);

    const viaNew = await eventually(async () => {
      const res = await visit(newToken);
      return res.status === 200 ? res.body : undefined;
    });
    expect(viaNew.affiliate.id).toBe(affiliate.id);
    const referral = await client.referrals.get({ id: viaNew.referral.id });
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
    const client = merchantClient(merchant.api_secret);
    const first = await createAffiliate(merchant, { token: unique('freed') });
    const second = await createAffiliate(merchant);
    const freed: string = first.links[0].token;
    await visitOf(merchant, freed);
    await client.links.update({ id: first.links[0].id, token: unique('moved') });
    await client.links.create({ affiliate_id: second.id, token: freed });
    const viaFreed = await eventually(async () => {
      const res = await visit(freed);
      return res.status === 200 && res.body.affiliate.id === second.id ? res.body : undefined;
    });
    expect(viaFreed.affiliate.id).toBe(second.id);
  });

  it('validates like create: a taken token, bad characters and a bad url get 422', async () => {
    const client = merchantClient(merchant.api_secret);
    const mine = await createAffiliate(merchant);
    const other = await createAffiliate(merchant);
    const id: string = mine.links[0].id;
    const update = (fields: Omit<OperationInput<'updateLink'>, 'id'>) =>
      rejection(client.links.update({ id, ...fields }));

    const taken = await update({ token: other.links[0].token });
    expect(taken).toBeInstanceOf(InvalidRequestError);
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({
      error: 'Could not update affiliate link.',
      details: ['Token has already been taken'],
    });
    // The same detail as create gives for a taken token.
    const createTaken = await rejection(
      client.links.create({ affiliate_id: mine.id, token: other.links[0].token }),
    );
    expect(createTaken.details).toEqual(taken.details);

    const bad = await update({ token: 'no spaces' });
    expect(bad.status).toBe(422);
    expect(bad.details).toEqual(['Token may only contain letters, numbers and dashes']);
    const long = await update({ token: 'x'.repeat(65) });
    expect(long.details).toEqual(['Token is too long (maximum is 64 characters)']);
    const badUrl = await update({ url: 'ftp://example.com/' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.details).toEqual(['Url must be an absolute http(s) URL']);
    // Raw helper: a JSON array as the whole body is a malformed request the client cannot send.
    const notObject = await request('PUT', `/v1/affiliate_links/${id}`, {
      secret: merchant.api_secret,
      json: ['token'],
    });
    expect(notObject.status).toBe(422);

    // Nothing changed.
    expect((await client.links.get({ id })).token).toBe(mine.links[0].token);
    // Its own token again is not "taken".
    expect((await client.links.update({ id, token: mine.links[0].token })).token).toBe(
      mine.links[0].token,
    );
  });

  it('sets a landing page of its own (via=<token> kept), and blank goes back to the campaign URL', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const id: string = affiliate.links[0].id;
    const token = affiliate.links[0].token;
    const landing = await client.links.update({ id, url: 'https://shop.example.com/landing?x=1' });
    expect(landing.url).toBe(`https://shop.example.com/landing?x=1&via=${token}`);
    const renamed = await client.links.update({ id, token: `${token}-2` });
    expect(renamed.url).toBe(`https://shop.example.com/landing?x=1&via=${token}-2`);
    // Blank, as a form's empty field sends it (the client's `null` clears too).
    const cleared = await client.links.update({ id, url: '' });
    expect(cleared.url).toBe(affiliate.links[0].url.replace(`via=${token}`, `via=${token}-2`));
  });

  it("answers 404 for an unknown id, a malformed id and another merchant's link", async () => {
    const client = merchantClient(merchant.api_secret);
    const unknown = '99999999-9999-4999-8999-999999999999';
    const res = await rejection(client.links.update({ id: unknown, token: 'whatever' }));
    expect(res).toBeInstanceOf(NotFoundError);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Affiliate link not found: ${unknown}` });
    expect((await rejection(client.links.update({ id: 'not-a-uuid', token: 'x' }))).status).toBe(
      404,
    );

    const affiliate = await createAffiliate(merchant);
    const other = await createMerchant({ rateLimit: 100_000 });
    const foreign = await rejection(
      merchantClient(other.api_secret).links.update({
        id: affiliate.links[0].id,
        token: unique('stolen'),
      }),
    );
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign.status).toBe(404);
    expect((await client.links.get({ id: affiliate.links[0].id })).token).toBe(
      affiliate.links[0].token,
    );
  });
});

describe('affiliate coupons: token and external_id', () => {
  it('creates with token / external_id, shows them, and retrieves by id', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const token = unique('SAVE');
    const created = await client.coupons.create({
      affiliate_id: affiliate.id,
      token,
      external_id: 'co_ext_1',
    });
    expect(created).toMatchObject({
      token,
      external_id: 'co_ext_1',
      affiliate_id: affiliate.id,
      campaign_id: affiliate.campaign.id,
    });
    // The spec does not show the coupon record; the older names are input-only aliases.
    expect(created).not.toHaveProperty('code');
    expect(created).not.toHaveProperty('processor_coupon_id');

    const retrieved = await client.coupons.get({ id: created.id });
    expect(retrieved).toEqual(created);

    const taken = await rejection(client.coupons.create({ affiliate_id: affiliate.id, token }));
    expect(taken).toBeInstanceOf(InvalidRequestError);
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({
      error: 'Could not create affiliate coupon.',
      details: ['Token has already been taken'],
    });
    // Without the required token (the types ask for it; untyped code may leave it out).
    const blank = await rejection(
      client.coupons.create({
        affiliate_id: affiliate.id,
      } as OperationInput<'createCoupon'>),
    );
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({
      error: 'Could not create affiliate coupon.',
      details: ["Token can't be blank"],
    });
  });

  it('still accepts code / processor_coupon_id on input', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const code = unique('OLD');
    // The older names are input-only aliases the types do not offer; older integrations send them.
    const created = await client.coupons.create({
      affiliate_id: affiliate.id,
      code,
      processor_coupon_id: 'co_old',
    } as unknown as OperationInput<'createCoupon'>);
    expect(created).toMatchObject({ token: code, external_id: 'co_old' });
    // Taken under either name.
    const again = await rejection(
      client.coupons.create({ affiliate_id: affiliate.id, token: code }),
    );
    expect(again.status).toBe(422);
    expect(again.details).toEqual(['Token has already been taken']);
  });

  it('attributes a customer who used the coupon token to its affiliate', async () => {
    const affiliate = await createAffiliate(merchant);
    const token = unique('TOK');
    const client = merchantClient(merchant.api_secret);
    await client.coupons.create({ affiliate_id: affiliate.id, token });
    const customerId = `cus_${randomUUID()}`;
    const referral = await eventually(async () => {
      await sendProcessorEvent(merchant, 'customer.created', {
        id: customerId,
        email: `${randomUUID()}@example.com`,
        metadata: { coupon: token },
      });
      const res = await client.referrals.list({
        processor_customer_id: customerId,
        expand: 'affiliate',
      });
      return res.data[0];
    });
    expect(referral.affiliate!.id).toBe(affiliate.id);
  });

  it("answers 404 for an unknown coupon and another merchant's", async () => {
    const client = merchantClient(merchant.api_secret);
    const unknown = '99999999-9999-4999-8999-999999999999';
    const res = await rejection(client.coupons.get({ id: unknown }));
    expect(res).toBeInstanceOf(NotFoundError);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Affiliate coupon not found: ${unknown}` });
    expect((await rejection(client.coupons.get({ id: 'nope' }))).status).toBe(404);
    const affiliate = await createAffiliate(merchant);
    const coupon = await client.coupons.create({
      affiliate_id: affiliate.id,
      token: unique('MINE'),
    });
    const other = await createMerchant();
    const foreign = await rejection(
      merchantClient(other.api_secret).coupons.get({ id: coupon.id }),
    );
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: `Affiliate coupon not found: ${coupon.id}` });
  });
});
