/** Bodies of the public tracking endpoints (`/t/v1`), after the gateway resolved the public key. */
import { z } from 'zod';
import { optionalText, requiredEmail, requiredText } from './fields';

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
