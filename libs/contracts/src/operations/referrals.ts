/** Referrals: unique visits through affiliate links, and how far they converted. */
import { z } from 'zod';
import { REVIEW_STATES } from '../fraud';
import { reviewReferralBodySchema } from '../schemas/tracking';
import { paginatedSchema } from '../views';
import { CONVERSION_STATES, referralViewSchema } from '../views-money';
import {
  expandQuery,
  filter,
  idParams,
  multiValueQuery,
  pageQuery,
  timestampFilter,
} from './common';
import { defineOperation } from './operation';

const tag = 'Referrals';

export const listReferrals = defineOperation({
  name: 'listReferrals',
  owner: 'tracking',
  auth: 'apiSecret',
  tag,
  summary: 'List referrals',
  http: { method: 'get', path: '/v1/referrals' },
  query: z.object({
    affiliate_id: filter('Only referrals of this affiliate'),
    ...multiValueQuery('conversion_state', CONVERSION_STATES),
    email: filter('Only referrals with this e-mail address'),
    processor_customer_id: filter('Only referrals with this customer id'),
    updated_since: timestampFilter('Only referrals updated after this time (ISO 8601)'),
    updated_until: timestampFilter('Only referrals updated before this time (ISO 8601)'),
    flagged: z
      .enum(['true', 'false'], { error: 'flagged must be true or false' })
      .describe('true: only referrals with fraud signals; false: only those without')
      .transform((v) => v === 'true')
      .optional(),
    review_state: z
      .enum(REVIEW_STATES, { error: `review_state must be one of: ${REVIEW_STATES.join(', ')}` })
      .describe('Only referrals in this review state')
      .optional(),
    ...pageQuery,
    ...expandQuery(['affiliate']),
  }),
  response: {
    status: 200,
    description: 'A page of referrals',
    body: paginatedSchema(referralViewSchema),
  },
  errors: [400],
});

export const getReferral = defineOperation({
  name: 'getReferral',
  owner: 'tracking',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a referral',
  http: { method: 'get', path: '/v1/referrals/:id' },
  params: idParams,
  response: { status: 200, description: 'The referral', body: referralViewSchema },
  errors: [404],
});

export const reviewReferral = defineOperation({
  name: 'reviewReferral',
  owner: 'tracking',
  auth: 'apiSecret',
  tag,
  summary: 'Review a referral held for its fraud signals',
  description:
    'approve releases its held commissions (due at once when their due_at has passed); reject ' +
    'voids them and deactivates the referral. Only an open review can be decided (else 422).',
  http: { method: 'post', path: '/v1/referrals/:id/review' },
  params: idParams,
  invalid: 'Could not review referral.',
  body: reviewReferralBodySchema,
  response: { status: 200, description: 'The reviewed referral', body: referralViewSchema },
  errors: [400, 404, 422],
});

export const referralTotalsSchema = z.object({
  visitors: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
});
export type ReferralTotals = z.infer<typeof referralTotalsSchema>;

/**
 * Internal: the merchant console's overview. The merchant's visitors, leads and conversions to
 * date: tracking's count document of the merchant (kept with its affiliates' and links'
 * counts, one read), never counted from referrals.
 */
export const getReferralTotals = defineOperation({
  name: 'getReferralTotals',
  owner: 'tracking',
  auth: 'internal',
  summary: "The merchant's visitors, leads and conversions (the console's overview)",
  input: z.object({ merchant_id: z.string() }),
  response: { status: 200, description: 'The totals', body: referralTotalsSchema },
  errors: [400],
});

/** The most midnights `getReferralHistory` answers for (the overview's window and one more). */
export const REFERRAL_HISTORY_MAX_DAYS = 31;

export const referralHistorySchema = z.object({
  /** Oldest first; the last one is the most recent UTC midnight (the start of today). */
  midnights: z.array(
    referralTotalsSchema.extend({
      /** The midnight (UTC, ISO 8601): the figures count what happened before it. */
      at: z.string().datetime(),
    }),
  ),
});
export type ReferralHistory = z.infer<typeof referralHistorySchema>;

/**
 * Internal: the console overview's chart for days before its first daily reading. The
 * merchant's visitors, leads and conversions as they stood at each of the last `days` UTC
 * midnights, counted from its referrals (`created_at`, `became_lead_at`,
 * `became_conversion_at`: each written once, and a referral is never deleted) in one
 * aggregation, bounded by the list-read time limit (a 504 past it).
 */
export const getReferralHistory = defineOperation({
  name: 'getReferralHistory',
  owner: 'tracking',
  auth: 'internal',
  summary: "The merchant's visitors, leads and conversions at each of the last UTC midnights",
  input: z.object({
    merchant_id: z.string(),
    days: z.number().int().min(1).max(REFERRAL_HISTORY_MAX_DAYS),
  }),
  response: { status: 200, description: 'The figures per midnight', body: referralHistorySchema },
  errors: [400],
});
