/** Affiliate coupons: codes that attribute a customer without a link visit. */
import { z } from 'zod';
import { createCouponBodySchema } from '../schemas/affiliate';
import { affiliateViewSchema, paginatedSchema } from '../views';
import { couponViewSchema } from '../views-money';
import { filter, idParams, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Affiliate coupons';

export const listCoupons = defineOperation({
  name: 'listCoupons',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'List affiliate coupons',
  http: { method: 'get', path: '/v1/affiliate_coupons' },
  query: z.object({ affiliate_id: filter("Only this affiliate's coupons"), ...pageQuery }),
  response: {
    status: 200,
    description: 'A page of coupons',
    body: paginatedSchema(couponViewSchema),
  },
  errors: [400],
});

export const createCoupon = defineOperation({
  name: 'createCoupon',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Create a coupon for an affiliate',
  description:
    "`token` is the code customers type and `external_id` the processor's coupon id; the older " +
    'names `code` and `processor_coupon_id` are accepted too (the new name wins when both are sent).',
  http: { method: 'post', path: '/v1/affiliate_coupons' },
  invalid: 'Could not create affiliate coupon.',
  body: createCouponBodySchema,
  response: { status: 200, description: 'The new coupon', body: couponViewSchema },
  errors: [400, 422],
});

export const getCoupon = defineOperation({
  name: 'getCoupon',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a coupon',
  http: { method: 'get', path: '/v1/affiliate_coupons/:id' },
  params: idParams,
  response: { status: 200, description: 'The coupon', body: couponViewSchema },
  errors: [404],
});

/**
 * Internal: the coupon a code belongs to, and its affiliate (tracking's coupon look-up when its
 * catalog has not heard of a coupon created a moment ago).
 */
export const resolveCouponCode = defineOperation({
  name: 'resolveCouponCode',
  owner: 'affiliate',
  auth: 'internal',
  summary: 'Resolve a coupon code to its coupon and affiliate',
  input: z.object({ merchant_id: z.string(), code: z.string() }),
  response: {
    status: 200,
    description: 'The coupon and its affiliate',
    body: z.object({ coupon: couponViewSchema, affiliate: affiliateViewSchema }),
  },
  errors: [404],
});
