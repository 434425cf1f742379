/** Bodies of the public tracking endpoints (`/t/v1`), after the gateway resolved the public key. */
import { z } from 'zod';
import { optionalText, requiredEmail, requiredText } from './fields';
import { REVIEW_DECISIONS } from '../fraud';

export const visitBodySchema = z.object({
  token: requiredText('Token', 64),
  url: optionalText('Url', 2048),
  referrer: optionalText('Referrer', 2048),
  referral: optionalText('Referral', 64),
});
export type VisitBody = z.infer<typeof visitBodySchema>;

export const leadBodySchema = z.object({
  referral: requiredText('Referral', 64),
  email: requiredEmail('Email'),
  name: optionalText('Name'),
});
export type LeadBody = z.infer<typeof leadBodySchema>;

/** `POST /v1/referrals/:id/review`. */
export const reviewReferralBodySchema = z.object({
  decision: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.enum(REVIEW_DECISIONS, { error: 'Decision must be approve or reject' }),
  ),
  note: optionalText('Note', 1000),
});
export type ReviewReferralBody = z.infer<typeof reviewReferralBodySchema>;
