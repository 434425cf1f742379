/** Request bodies of the affiliate service's REST operations. */
import { z } from 'zod';
import { AFFILIATE_STATES } from '../views';
import {
  nonBlankTextIfPresent,
  optionalBoolean,
  optionalEmail,
  optionalEnum,
  optionalHttpUrl,
  optionalText,
  optionalToken,
  requiredEmail,
  requiredText,
} from './fields';

export const createAffiliateBodySchema = z.object({
  first_name: requiredText('First name'),
  last_name: requiredText('Last name'),
  email: requiredEmail('Email'),
  state: optionalEnum('State', AFFILIATE_STATES),
  processor_customer_id: optionalText('Processor customer'),
  token: optionalToken('Token'),
  campaign_id: optionalText('Campaign'),
  wallet_a_email: optionalEmail('Wallet a email'),
  wallet_b_email: optionalEmail('Wallet b email'),
  receive_new_commission_notifications: optionalBoolean('Receive new commission notifications'),
});
export type CreateAffiliateBody = z.infer<typeof createAffiliateBodySchema>;

export const updateAffiliateBodySchema = z.object({
  first_name: nonBlankTextIfPresent('First name'),
  last_name: nonBlankTextIfPresent('Last name'),
  email: optionalEmail('Email'),
  state: optionalEnum('State', AFFILIATE_STATES),
  campaign_id: optionalText('Campaign'),
  wallet_a_email: optionalEmail('Wallet a email'),
  wallet_b_email: optionalEmail('Wallet b email'),
  receive_new_commission_notifications: optionalBoolean('Receive new commission notifications'),
  fraud_exempt: optionalBoolean('Fraud exempt'),
});
export type UpdateAffiliateBody = z.infer<typeof updateAffiliateBodySchema>;

export const createLinkBodySchema = z.object({
  affiliate_id: requiredText('Affiliate'),
  token: optionalToken('Token'),
  /** Landing page the link points at instead of the campaign's URL (`via=<token>` is added). */
  url: optionalHttpUrl('Url'),
});
export type CreateLinkBody = z.infer<typeof createLinkBodySchema>;

/** `PUT /v1/affiliate_links/:id`: the same rules as on create; absent fields stay as they are. */
export const updateLinkBodySchema = z.object({
  token: optionalToken('Token'),
  url: optionalHttpUrl('Url'),
});
export type UpdateLinkBody = z.infer<typeof updateLinkBodySchema>;

/**
 * Coupons take `token` (the code customers type) and `external_id` (the processor's coupon id);
 * the older names `code` and `processor_coupon_id` stay accepted. The new name wins when both
 * are sent.
 */
const COUPON_ALIASES = { token: 'code', external_id: 'processor_coupon_id' } as const;

function withCouponAliases(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  const out: Record<string, unknown> = { ...input };
  for (const [name, alias] of Object.entries(COUPON_ALIASES)) {
    if (isBlank(out[name]) && !isBlank(input[alias])) out[name] = input[alias];
  }
  return out;
}

const isBlank = (v: unknown) => v === undefined || v === null || v === '';

export const createCouponBodySchema = z.preprocess(
  withCouponAliases,
  z.object({
    affiliate_id: requiredText('Affiliate'),
    token: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim() : (v ?? '')),
      z
        .string({ error: 'Token is invalid' })
        .min(1, { error: "Token can't be blank", abort: true })
        .max(64, { error: 'Token is too long (maximum is 64 characters)', abort: true })
        .regex(/^[A-Za-z0-9_-]+$/, {
          error: 'Token may only contain letters, numbers, dashes and underscores',
        }),
    ),
    external_id: optionalText('External'),
  }),
);
export type CreateCouponBody = z.infer<typeof createCouponBodySchema>;
