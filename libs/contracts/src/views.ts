/**
 * JSON shapes the REST API returns (and events carry). Defined as zod schemas so an OpenAPI
 * document can be generated from them; TypeScript types are inferred from the same schemas.
 */
import { z } from 'zod';
import { fraudPolicySchema } from './fraud';

const timestamp = z.string().describe('ISO 8601 timestamp');
const uuid = z.string().describe('UUID');

export const campaignViewSchema = z.object({
  id: uuid,
  name: z.string(),
  url: z.string(),
  reward_type: z.enum(['percent', 'amount']),
  commission_percent: z.number().nullable(),
  commission_amount_cents: z.number().int().nullable(),
  commission_amount_currency: z.string().nullable(),
  minimum_payout_cents: z.number().int(),
  days_until_commissions_are_due: z.number().int(),
  days_before_referrals_expire: z.number().int(),
  max_commission_period_months: z.number().int().nullable(),
  max_commissions: z.number().int().nullable(),
  // Optional only because campaigns copied into older events and records lack them; the API
  // always shows both (defaults filled in).
  fraud_policy: fraudPolicySchema
    .optional()
    .describe('What each fraud signal does to a referral: ignore, flag, hold or block'),
  ip_velocity_limit: z
    .number()
    .int()
    .optional()
    .describe('Leads or customers of one affiliate from one address in 24 h before ip_velocity'),
  default: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type CampaignView = z.infer<typeof campaignViewSchema>;

export const linkViewSchema = z.object({
  id: uuid,
  url: z.string(),
  token: z.string(),
  visitors: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
  affiliate_id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
});
export type LinkView = z.infer<typeof linkViewSchema>;

const moneySchema = z.object({ cents: z.number().int(), currency_iso: z.string() });
export const commissionStatsSchema = z.object({
  currencies: z.record(
    z.string(),
    z.object({
      unpaid: moneySchema,
      due: moneySchema,
      paid: moneySchema,
      total: moneySchema,
      gross_revenue: moneySchema,
      net_revenue: moneySchema,
    }),
  ),
});
export type CommissionStats = z.infer<typeof commissionStatsSchema>;

export const AFFILIATE_STATES = ['active', 'disabled', 'suspicious'] as const;
export type AffiliateState = (typeof AFFILIATE_STATES)[number];

export const affiliateViewSchema = z.object({
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  state: z.enum(AFFILIATE_STATES),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  confirmed_at: timestamp.nullable(),
  unconfirmed_email: z.string().nullable(),
  /** Where payouts go: only ever a confirmed address (docs/security.md, "Wallet changes"). */
  wallet_a_email: z.string().nullable(),
  wallet_a_email_confirmed_at: timestamp.nullable(),
  /**
   * A new wallet address waiting for the affiliate to follow the link mailed to their account
   * e-mail; null when none. Absent from views published before wallet confirmation existed.
   */
  unconfirmed_wallet_a_email: z.string().nullable().default(null),
  wallet_b_email: z.string().nullable(),
  wallet_b_email_confirmed_at: timestamp.nullable(),
  unconfirmed_wallet_b_email: z.string().nullable().default(null),
  receive_new_commission_notifications: z.boolean(),
  sign_in_count: z.number().int(),
  processor_customer_id: z.string().nullable(),
  processor_account_id: z.string().nullable(),
  visitors: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
  fraud_exempt: z
    .boolean()
    .optional()
    .describe('Signals are recorded, but nothing is held or blocked (always shown by the API)'),
  campaign: campaignViewSchema.optional(),
  links: z.array(linkViewSchema).optional(),
  commission_stats: commissionStatsSchema.optional(),
});
export type AffiliateView = z.infer<typeof affiliateViewSchema>;

export const paginationSchema = z.object({
  previous_page: z.number().int().nullable(),
  current_page: z.number().int(),
  next_page: z.number().int().nullable(),
  count: z.number().int(),
  limit: z.number().int(),
  total_pages: z.number().int(),
  total_count: z.number().int(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export function paginatedSchema<T extends z.ZodType>(item: T) {
  return z.object({ pagination: paginationSchema, data: z.array(item) });
}
export interface Paginated<T> {
  pagination: Pagination;
  data: T[];
}

export const errorBodySchema = z.object({
  error: z.string(),
  details: z.array(z.string()).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
