/** REST shapes of the money flow: referrals, sales, commissions, payouts, coupons. */
import { z } from 'zod';
import { fraudSignalSchema, REVIEW_STATES } from './fraud';
import {
  affiliateViewSchema,
  campaignViewSchema,
  type AffiliateView,
  type CampaignView,
} from './views';

const timestamp = z.string().describe('ISO 8601 timestamp');
const uuid = z.string().describe('UUID');

export const CONVERSION_STATES = ['visitor', 'lead', 'conversion'] as const;
export type ConversionState = (typeof CONVERSION_STATES)[number];

/** The link as a referral shows it. */
export const referralLinkSchema = z.object({
  id: uuid,
  url: z.string(),
  token: z.string(),
  visitors: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
});
export type ReferralLink = z.infer<typeof referralLinkSchema>;

export const referralCustomerSchema = z.object({
  platform: z.string(),
  id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
});
export type ReferralCustomer = z.infer<typeof referralCustomerSchema>;

export const referralViewSchema = z.object({
  id: uuid,
  link: referralLinkSchema.nullable(),
  visits: z.number().int(),
  customer: referralCustomerSchema.nullable(),
  affiliate: affiliateViewSchema.optional(),
  created_at: timestamp,
  became_lead_at: timestamp.nullable(),
  became_conversion_at: timestamp.nullable(),
  expires_at: timestamp,
  updated_at: timestamp,
  deactivated_at: timestamp.nullable(),
  conversion_state: z.enum(CONVERSION_STATES),
  processor_account_id: z.string().nullable(),
  processor_customer_id: z.string().nullable(),
  // Optional only for referrals copied into older events and sales; the API always shows them.
  fraud_signals: z.array(fraudSignalSchema).optional().describe('What the fraud checks found'),
  review_state: z
    .enum(REVIEW_STATES)
    .nullable()
    .optional()
    .describe('open while held for review; approved or rejected once decided; null otherwise'),
  reviewed_at: timestamp.nullable().optional(),
  review_note: z.string().nullable().optional(),
});
export type ReferralView = z.infer<typeof referralViewSchema>;

export const saleViewSchema = z.object({
  id: uuid,
  currency: z.string(),
  charged_at: timestamp,
  invoiced_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  processor_account_id: z.string().nullable(),
  processor_charge_id: z.string(),
  charge_amount_cents: z.number().int(),
  refund_amount_cents: z.number().int(),
  tax_amount_cents: z.number().int(),
  sale_amount_cents: z.number().int(),
  referral: referralViewSchema,
  affiliate: affiliateViewSchema,
});
export type SaleView = z.infer<typeof saleViewSchema>;

export const COMMISSION_STATES = ['pending', 'due', 'paid', 'voided'] as const;
export type CommissionState = (typeof COMMISSION_STATES)[number];

export const commissionViewSchema = z.object({
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  amount: z.number().int(),
  currency: z.string(),
  state: z.enum(COMMISSION_STATES),
  due_at: timestamp,
  paid_at: timestamp.nullable(),
  voided_at: timestamp.nullable(),
  held: z
    .boolean()
    .optional()
    .describe('Held for a review of its referral: it does not become due or get paid until then'),
  campaign: campaignViewSchema.optional(),
  sale: saleViewSchema.optional(),
});
export type CommissionView = z.infer<typeof commissionViewSchema>;

/**
 * A commission as its events carry it: always with its sale (the commission service embeds the
 * sale in every commission event; the payout service and the affiliate mailer read the sale's
 * affiliate from it). The REST view's `sale` is an expansion, so optional there.
 */
export const commissionEventSchema = commissionViewSchema.extend({ sale: saleViewSchema });
export type CommissionEventView = z.infer<typeof commissionEventSchema>;

export const PAYOUT_STATES = ['pending', 'due', 'processing', 'paid'] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

export const payoutCommissionSchema = z.object({
  id: uuid,
  currency: z.string(),
  processor_account_id: z.string().nullable(),
  due_at: timestamp,
  paid_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  amount: z.number().int(),
  state: z.enum(COMMISSION_STATES).optional(),
  voided_at: timestamp.nullable().optional(),
  held: z.boolean().optional(),
});
export type PayoutCommission = z.infer<typeof payoutCommissionSchema>;

export const payoutViewSchema = z.object({
  id: uuid,
  currency: z.string(),
  paid_at: timestamp.nullable(),
  state: z.enum(PAYOUT_STATES),
  paid_by_id: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  amount: z.number().int(),
  affiliate: affiliateViewSchema.optional(),
  commissions: z.array(payoutCommissionSchema).optional(),
});
export type PayoutView = z.infer<typeof payoutViewSchema>;

/**
 * The spec does not show the coupon record; `token` (the code customers type) and `external_id`
 * (the processor's coupon id) are the names existing clients read (DESIGN.md). The older input
 * names `code` / `processor_coupon_id` are not part of the output.
 */
export const couponViewSchema = z.object({
  id: uuid,
  token: z.string(),
  /** The processor's coupon id; the coupon's `token` when none was given (docs/decisions.md). */
  external_id: z.string(),
  affiliate_id: uuid,
  campaign_id: uuid,
  leads: z.number().int(),
  conversions: z.number().int(),
  archived: z.boolean(),
  archived_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type CouponView = z.infer<typeof couponViewSchema>;

/**
 * Processor identifiers are short (tens of characters); the caps keep an oversized value from
 * reaching a referral or a sale, and name the field in the hook's 400.
 */
function processorText(label: string, max = 255) {
  return z
    .string({ error: `${label} must be a string` })
    .min(1, { error: `${label} can't be blank` })
    .max(max, { error: `${label} is too long (maximum is ${max} characters)` });
}

/** A payment-processor event as posted to `/hooks/processor/:public_key`. */
export const processorEventSchema = z.object({
  id: processorText('Event id'),
  type: processorText('Event type', 100),
  created: z.number().optional(),
  account: processorText('Event account').nullable().optional(),
  livemode: z.boolean().optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
export type ProcessorEvent = z.infer<typeof processorEventSchema>;

export const processorCustomerSchema = z.object({
  id: processorText('Customer id'),
  email: z
    .string()
    .max(254, { error: 'Customer email is too long (maximum is 254 characters)' })
    .nullable()
    .optional(),
  name: z
    .string()
    .max(255, { error: 'Customer name is too long (maximum is 255 characters)' })
    .nullable()
    .optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type ProcessorCustomer = z.infer<typeof processorCustomerSchema>;

export const processorChargeSchema = z.object({
  id: processorText('Charge id'),
  // Empty was accepted before the caps (a charge without a customer); it still is.
  customer: z
    .string()
    .max(255, { error: 'Charge customer is too long (maximum is 255 characters)' })
    .nullable()
    .optional(),
  amount: z.number().int().min(0),
  amount_refunded: z.number().int().min(0).default(0),
  currency: z.string().min(3),
  created: z.number().optional(),
  invoice: z
    .string()
    .max(255, { error: 'Charge invoice is too long (maximum is 255 characters)' })
    .nullable()
    .optional(),
  tax: z.number().int().min(0).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type ProcessorCharge = z.infer<typeof processorChargeSchema>;

/** The event types whose object tracking reads, with the object's schema (checked at the hook). */
export const processorObjectSchemas: Record<string, z.ZodType> = {
  'customer.created': processorCustomerSchema,
  'customer.updated': processorCustomerSchema,
  'charge.succeeded': processorChargeSchema,
  'charge.refunded': processorChargeSchema,
};

/** Internal: a charge of a customer attributed to a live referral (tracking → commission). */
export interface ChargeAttributed {
  processor_event_id: string;
  processor_account_id: string | null;
  charge: ProcessorCharge;
  referral: ReferralView;
  /** The affiliate as known when the charge was attributed (with its campaign). */
  affiliate: AffiliateView;
  /** The campaign whose rules apply to this charge. */
  campaign: CampaignView;
}

/** Internal: a refund of a charge whose customer is attributed (tracking → commission). */
export interface ChargeRefundAttributed {
  processor_event_id: string;
  charge: ProcessorCharge;
  referral_id: string;
}

/** Body of the tracking service's public visit intake (after the gateway resolved the key). */
export interface VisitAnswer {
  referral: { id: string; expires_at: string } | null;
  affiliate: { id: string; first_name: string };
}

/** Answer of the public lead intake: like a visit's, the referral always present. */
export interface LeadAnswer {
  referral: { id: string; expires_at: string };
  affiliate: { id: string; first_name: string };
}

/** Internal: a verified processor event (gateway → tracking). */
export interface ProcessorReceived {
  event: ProcessorEvent;
}

/** Internal: where a coupon-attributed referral stands, for the coupon's leads/conversions counts. */
export interface CouponReferral {
  coupon_id: string;
  referral_id: string;
  lead: boolean;
  conversion: boolean;
}
