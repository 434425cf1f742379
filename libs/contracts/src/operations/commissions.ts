/** Commissions: what an affiliate earned for a referred customer's payment. */
import { z } from 'zod';
import { updateCommissionBodySchema } from '../schemas/commission';
import { commissionStatsSchema, paginatedSchema } from '../views';
import { COMMISSION_STATES, commissionViewSchema } from '../views-money';
import { deletedSchema, expandQuery, filter, idParams, multiValueQuery, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Commissions';

export const listCommissions = defineOperation({
  name: 'listCommissions',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'List commissions',
  http: { method: 'get', path: '/v1/commissions' },
  query: z.object({
    affiliate_id: filter('Only commissions of this affiliate'),
    ...multiValueQuery('state', COMMISSION_STATES),
    ...pageQuery,
    ...expandQuery(['sale', 'campaign']),
  }),
  response: {
    status: 200,
    description: 'A page of commissions',
    body: paginatedSchema(commissionViewSchema),
  },
  errors: [400],
});

export const getCommission = defineOperation({
  name: 'getCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a commission (with campaign and sale)',
  http: { method: 'get', path: '/v1/commissions/:id' },
  params: idParams,
  response: { status: 200, description: 'The commission', body: commissionViewSchema },
  errors: [404],
});

export const updateCommission = defineOperation({
  name: 'updateCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary:
    'Reschedule an unpaid commission (`due_at`) or mark it paid outside a payout (`paid_at`)',
  http: { method: 'put', path: '/v1/commissions/:id', aliases: ['patch'] },
  params: idParams,
  invalid: 'Could not update commission.',
  body: updateCommissionBodySchema,
  response: { status: 200, description: 'The updated commission', body: commissionViewSchema },
  errors: [400, 404, 422],
});

export const deleteCommission = defineOperation({
  name: 'deleteCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'Void an unpaid commission (a paid one answers 422)',
  http: { method: 'delete', path: '/v1/commissions/:id' },
  params: idParams,
  response: { status: 200, description: 'The voided commission', body: deletedSchema },
  errors: [404, 422],
});

/** An ISO 8601 time as it crosses NATS (a string; the service reads it as a Date). */
const isoTime = z
  .string()
  .max(40)
  .refine((text) => !Number.isNaN(new Date(text).getTime()), 'must be an ISO 8601 timestamp');

/**
 * Internal: the merchant console's commission list. The REST list's filters (affiliate, states)
 * plus a creation-date range, which the public list (the spec's) does not have. Each commission
 * comes with its sale (so the console can name the affiliate).
 */
export const findCommissions = defineOperation({
  name: 'findCommissions',
  owner: 'commission',
  auth: 'internal',
  summary: "A page of commissions by affiliate, state and creation date (the console's list)",
  input: z.object({
    merchant_id: z.string(),
    affiliate_id: z.string().max(100).optional(),
    states: z.array(z.enum(COMMISSION_STATES)).max(COMMISSION_STATES.length).optional(),
    /** Created at or after this time. */
    created_since: isoTime.optional(),
    /** Created before this time. */
    created_until: isoTime.optional(),
    page: z.number().int().min(1).max(100_000).default(1),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  response: {
    status: 200,
    description: 'A page of commissions, each with its sale',
    body: paginatedSchema(commissionViewSchema),
  },
  errors: [400],
});

/**
 * Internal: the merchant's `commission_stats` over every affiliate (the console's overview),
 * kept by the commission service with its commissions and sales (one document per merchant),
 * so nobody adds up every affiliate. Currencies sorted by code.
 */
export const getCommissionTotals = defineOperation({
  name: 'getCommissionTotals',
  owner: 'commission',
  auth: 'internal',
  summary: "The merchant's commission_stats over all its affiliates",
  input: z.object({ merchant_id: z.string() }),
  response: {
    status: 200,
    description: 'The totals',
    body: z.object({ commission_stats: commissionStatsSchema }),
  },
  errors: [400],
});

/**
 * Internal: affiliates' `commission_stats` (the affiliate service's `commission_stats`
 * expansion and overview), kept by the commission service. An affiliate with no commission
 * or sale has `{currencies: {}}`; every id asked for is answered.
 */
export const getAffiliateCommissionStats = defineOperation({
  name: 'getAffiliateCommissionStats',
  owner: 'commission',
  auth: 'internal',
  summary: "Affiliates' commission_stats, by affiliate id",
  input: z.object({
    merchant_id: z.string(),
    affiliate_ids: z.array(z.string().max(100)).max(1000),
  }),
  response: {
    status: 200,
    description: 'Each affiliate id with its commission_stats',
    body: z.object({ stats: z.record(z.string(), commissionStatsSchema) }),
  },
  errors: [400],
});
