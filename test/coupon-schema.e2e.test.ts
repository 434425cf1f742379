/**
 * Coupon answers parse in a third-party client that checks responses with strict zod schemas:
 * written here by hand, as such a client's author would from the documented shape, and not
 * taken from our own contract map (which is what is being checked).
 */
import { z } from 'zod';
import { api } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';

const isoTimestamp = z.iso.datetime({ offset: true });
const couponSchema = z.strictObject({
  id: z.uuid(),
  token: z.string().min(1),
  external_id: z.string().min(1),
  affiliate_id: z.uuid(),
  campaign_id: z.uuid(),
  leads: z.number().int(),
  conversions: z.number().int(),
  archived: z.boolean(),
  archived_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});
const couponListSchema = z.strictObject({
  pagination: z.strictObject({
    previous_page: z.number().int().nullable(),
    current_page: z.number().int(),
    next_page: z.number().int().nullable(),
    count: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
    total_count: z.number().int(),
  }),
  data: z.array(couponSchema),
});

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant();
});

describe('coupon answers against a strict client schema', () => {
  it('create, retrieve and list parse, with the token as external_id when none was given', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const token = `STRICT-${Date.now()}`;
    const created = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token,
    });
    expect(created.status).toBe(200);
    const coupon = couponSchema.parse(created.body);
    expect(coupon.external_id).toBe(token);

    const withId = await client.post('/v1/affiliate_coupons', {
      affiliate_id: affiliate.id,
      token: `${token}-B`,
      external_id: 'co_given',
    });
    expect(couponSchema.parse(withId.body).external_id).toBe('co_given');

    const retrieved = await client.get(`/v1/affiliate_coupons/${coupon.id}`);
    expect(retrieved.status).toBe(200);
    expect(couponSchema.parse(retrieved.body)).toEqual(coupon);

    const listed = await client.get(`/v1/affiliate_coupons?affiliate_id=${affiliate.id}`);
    expect(listed.status).toBe(200);
    const list = couponListSchema.parse(listed.body);
    expect(list.data.map((c) => [c.token, c.external_id]).sort()).toEqual([
      [token, token],
      [`${token}-B`, 'co_given'],
    ]);
    // The merchant-wide list too (every coupon of the tenant, not only this affiliate's).
    couponListSchema.parse((await client.get('/v1/affiliate_coupons')).body);
  });
});
