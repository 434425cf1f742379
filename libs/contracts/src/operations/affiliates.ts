/** Affiliates and their magic sign-in links. */
import { z } from 'zod';
import { createAffiliateBodySchema, updateAffiliateBodySchema } from '../schemas/affiliate';
import { AFFILIATE_STATES, affiliateViewSchema, linkViewSchema, paginatedSchema } from '../views';
import { expandQuery, filter, idParams, pageQuery } from './common';
import { defineOperation } from './operation';

const AFFILIATE_EXPAND = ['campaign', 'links', 'commission_stats'] as const;
const tag = 'Affiliates';

export const listAffiliates = defineOperation({
  name: 'listAffiliates',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'List affiliates',
  http: { method: 'get', path: '/v1/affiliates' },
  query: z.object({
    campaign_id: filter('Only affiliates of this campaign'),
    email: filter('Only the affiliate with this e-mail address'),
    processor_customer_id: filter('Only the customer referrer with this customer id'),
    ...pageQuery,
    ...expandQuery(AFFILIATE_EXPAND),
  }),
  response: {
    status: 200,
    description: 'A page of affiliates',
    body: paginatedSchema(affiliateViewSchema),
  },
  errors: [400],
});

export const createAffiliate = defineOperation({
  name: 'createAffiliate',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Create an affiliate (or, with processor_customer_id, a customer referrer)',
  http: { method: 'post', path: '/v1/affiliates' },
  invalid: 'Could not create affiliate.',
  body: createAffiliateBodySchema,
  response: {
    status: 200,
    description: 'The new affiliate, with its campaign and first link',
    body: affiliateViewSchema,
  },
  errors: [400, 422],
});

export const getAffiliate = defineOperation({
  name: 'getAffiliate',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve an affiliate (with campaign and links)',
  http: { method: 'get', path: '/v1/affiliates/:id' },
  params: idParams,
  response: { status: 200, description: 'The affiliate', body: affiliateViewSchema },
  errors: [404],
});

export const updateAffiliate = defineOperation({
  name: 'updateAffiliate',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Update an affiliate',
  description: 'Changing `email` sets `unconfirmed_email` and mails a confirmation link.',
  http: { method: 'put', path: '/v1/affiliates/:id', aliases: ['patch'] },
  params: idParams,
  invalid: 'Could not update affiliate.',
  body: updateAffiliateBodySchema,
  response: { status: 200, description: 'The updated affiliate', body: affiliateViewSchema },
  errors: [400, 404, 422],
});

export const magicLinkSchema = z.object({
  sso: z.object({ url: z.string(), expires: z.string().describe('ISO 8601 timestamp') }),
  affiliate: z.object({ id: z.string(), email: z.string() }),
});

export const issueMagicLink = defineOperation({
  name: 'issueMagicLink',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: "One-time sign-in URL for the affiliate's dashboard (expires after one minute)",
  http: { method: 'get', path: '/v1/affiliates/:id/sso' },
  params: idParams,
  response: { status: 200, description: 'The magic link', body: magicLinkSchema },
  errors: [404],
});

/** Internal: the affiliate and campaign a link token belongs to (tracking's link directory). */
export const resolveLinkToken = defineOperation({
  name: 'resolveLinkToken',
  owner: 'affiliate',
  auth: 'internal',
  summary: 'Resolve a link token to its affiliate and campaign',
  input: z.object({ merchant_id: z.string(), token: z.string() }),
  response: {
    status: 200,
    description: 'The live link and its affiliate',
    body: z.object({ link: linkViewSchema, affiliate: affiliateViewSchema }),
  },
  errors: [404],
});

/** Internal: the gateway's `/portal/sso` redeems a magic link through this. */
export const redeemMagicLink = defineOperation({
  name: 'redeemMagicLink',
  owner: 'affiliate',
  auth: 'internal',
  summary: 'Redeem a magic link (single use)',
  // The token alone identifies the merchant.
  input: z.object({ token: z.string() }),
  response: {
    status: 200,
    description: 'The merchant and affiliate the link signs in',
    body: z.object({
      merchant_id: z.string(),
      affiliate: z.object({
        id: z.string(),
        first_name: z.string(),
        last_name: z.string(),
        email: z.string(),
      }),
    }),
  },
  errors: [401],
});

/** Internal: the gateway's `/portal/confirm-email` confirms an address change through this. */
export const confirmEmail = defineOperation({
  name: 'confirmEmail',
  owner: 'affiliate',
  auth: 'internal',
  summary: "Confirm an affiliate's new e-mail address",
  // The token alone identifies the merchant.
  input: z.object({ token: z.string() }),
  response: {
    status: 200,
    description: 'The confirmed affiliate',
    body: z.object({
      affiliate: z.object({ id: z.string(), first_name: z.string(), email: z.string() }),
    }),
  },
  errors: [404, 422],
});

/** Internal: the gateway's `/portal/confirm-wallet` confirms a new wallet address through this. */
export const confirmWallet = defineOperation({
  name: 'confirmWallet',
  owner: 'affiliate',
  auth: 'internal',
  summary: "Confirm an affiliate's new wallet e-mail",
  // The token alone identifies the merchant.
  input: z.object({ token: z.string() }),
  response: {
    status: 200,
    description: 'The wallet that now receives payouts',
    body: z.object({
      affiliate: z.object({ id: z.string(), first_name: z.string() }),
      wallet: z.enum(['a', 'b']),
      email: z.string(),
    }),
  },
  errors: [404],
});

/**
 * Internal: the merchant console's affiliate list. The REST list's filters plus a state filter
 * and a name search, which the public list (the spec's) does not have.
 */
export const findAffiliates = defineOperation({
  name: 'findAffiliates',
  owner: 'affiliate',
  auth: 'internal',
  summary: "A page of affiliates by state and name (the console's list)",
  input: z.object({
    merchant_id: z.string(),
    state: z.enum(AFFILIATE_STATES).optional(),
    /** Case-insensitive part of the first or last name. */
    name: z.string().trim().min(1).max(100).optional(),
    email: z.string().max(254).optional(),
    page: z.number().int().min(1).max(100_000).default(1),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  response: {
    status: 200,
    description: 'A page of affiliates',
    body: paginatedSchema(affiliateViewSchema),
  },
  errors: [400],
});

export const programStatsSchema = z.object({
  /** How many affiliates the program has, by state (the service's kept count per merchant). */
  affiliates: z.record(z.enum(AFFILIATE_STATES), z.number().int()),
  /** The affiliates with the most conversions (then the newest), with `commission_stats`. */
  top_affiliates: z.array(affiliateViewSchema),
});
export type ProgramStats = z.infer<typeof programStatsSchema>;

/**
 * Internal: the merchant console's overview. The affiliates by state (a count kept per
 * merchant) and the top affiliates by their stored `conversions` (the first 20 kept in one
 * document per merchant). Visitors, leads and conversions are tracking's
 * (`getReferralTotals`), the commission totals the commission service's (`getCommissionTotals`).
 */
export const getProgramStats = defineOperation({
  name: 'getProgramStats',
  owner: 'affiliate',
  auth: 'internal',
  summary:
    "The program's affiliates, top affiliates and commission totals (the console's overview)",
  input: z.object({
    merchant_id: z.string(),
    top: z.number().int().min(1).max(20).default(5),
  }),
  response: { status: 200, description: 'The totals', body: programStatsSchema },
  errors: [400],
});
