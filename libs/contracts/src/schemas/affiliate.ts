/** Request bodies of the affiliate service's REST operations. */
import { z } from 'zod';
import { AFFILIATE_STATES } from '../views';
import {
  nonBlankTextIfPresent,
  optionalBoolean,
  optionalEmail,
  optionalEnum,
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
});
export type UpdateAffiliateBody = z.infer<typeof updateAffiliateBodySchema>;

export const createLinkBodySchema = z.object({
  affiliate_id: requiredText('Affiliate'),
  token: optionalToken('Token'),
});
export type CreateLinkBody = z.infer<typeof createLinkBodySchema>;

export const createCouponBodySchema = z.object({
  affiliate_id: requiredText('Affiliate'),
  code: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : (v ?? '')),
    z
      .string({ error: 'Code is invalid' })
      .min(1, { error: "Code can't be blank", abort: true })
      .max(64, { error: 'Code is too long (maximum is 64 characters)', abort: true })
      .regex(/^[A-Za-z0-9_-]+$/, {
        error: 'Code may only contain letters, numbers, dashes and underscores',
      }),
  ),
  processor_coupon_id: optionalText('Processor coupon'),
});
export type CreateCouponBody = z.infer<typeof createCouponBodySchema>;
