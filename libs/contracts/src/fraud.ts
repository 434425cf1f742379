/**
 * The vocabulary of fraud signals and reviews (DESIGN.md section 3): signal types, the actions a
 * campaign's policy may take on each, review states, and the defaults a campaign starts with.
 */
import { z } from 'zod';

export const FRAUD_SIGNAL_TYPES = [
  'self_referral_email',
  'self_referral_ip',
  'disposable_email',
  'paid_ads',
  'ip_velocity',
] as const;
export type FraudSignalType = (typeof FRAUD_SIGNAL_TYPES)[number];

/** Weakest first: when a referral has several signals, the strongest action wins. */
export const FRAUD_ACTIONS = ['ignore', 'flag', 'hold', 'block'] as const;
export type FraudAction = (typeof FRAUD_ACTIONS)[number];

export const REVIEW_STATES = ['open', 'approved', 'rejected'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

export const REVIEW_DECISIONS = ['approve', 'reject'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

export type FraudPolicy = Record<FraudSignalType, FraudAction>;

/**
 * Blocking is kept for the one signal that is near-certain (the affiliate's own e-mail); the
 * address-based signals hold money until a person looks, since shared networks make them
 * noisier; the rest only inform.
 */
export const DEFAULT_FRAUD_POLICY: FraudPolicy = {
  self_referral_email: 'block',
  self_referral_ip: 'hold',
  disposable_email: 'flag',
  paid_ads: 'flag',
  ip_velocity: 'hold',
};
export const DEFAULT_IP_VELOCITY_LIMIT = 3;

const fraudAction = z.enum(FRAUD_ACTIONS);
export const fraudPolicySchema = z.object({
  self_referral_email: fraudAction,
  self_referral_ip: fraudAction,
  disposable_email: fraudAction,
  paid_ads: fraudAction,
  ip_velocity: fraudAction,
}) satisfies z.ZodType<FraudPolicy>;

export const fraudSignalSchema = z.object({
  type: z.enum(FRAUD_SIGNAL_TYPES),
  detected_at: z.string().describe('ISO 8601 timestamp'),
  detail: z.string().describe('Why, in a sentence a merchant can act on (never a raw address)'),
});
export type FraudSignal = z.infer<typeof fraudSignalSchema>;
