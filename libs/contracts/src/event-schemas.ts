/**
 * A zod schema for every domain event's `data`, next to the typed map (`EventMap`) it must
 * agree with: `satisfies` fails the build when the two drift apart. Consumers check each event
 * against its schema before a handler sees it (libs/messaging `eventHandlers`), so a handler
 * gets typed data and a malformed event is rejected as poison instead of half-applied.
 */
import { z } from 'zod';
import type { EventMap, EventType } from './events';
import { affiliateViewSchema, campaignViewSchema, linkViewSchema } from './views';
import {
  commissionEventSchema,
  couponViewSchema,
  payoutViewSchema,
  processorChargeSchema,
  processorEventSchema,
  referralViewSchema,
  saleViewSchema,
} from './views-money';
import { payoutExportViewSchema } from './views-export';
import { webhookEndpointViewSchema } from './views-webhook';
import { referralCountsSchema } from './referral-counts';

export const chargeAttributedSchema = z.object({
  processor_event_id: z.string(),
  processor_account_id: z.string().nullable(),
  charge: processorChargeSchema,
  referral: referralViewSchema,
  affiliate: affiliateViewSchema,
  campaign: campaignViewSchema,
});

export const chargeRefundAttributedSchema = z.object({
  processor_event_id: z.string(),
  charge: processorChargeSchema,
  referral_id: z.string(),
});

export const processorReceivedSchema = z.object({ event: processorEventSchema });

export const couponReferralSchema = z.object({
  coupon_id: z.string(),
  referral_id: z.string(),
  lead: z.boolean(),
  conversion: z.boolean(),
});

/** The mailer needs an affiliate and an address to mail (so an empty one is poison). */
export const emailChangeRequestedSchema = z.object({
  affiliate_id: z.string().min(1),
  email: z.string().min(3),
});

export const walletChangeRequestedSchema = emailChangeRequestedSchema.extend({
  wallet: z.enum(['a', 'b']),
});

/**
 * Coupon events published before `external_id` became a string carry `null` there: they stand
 * for the coupon's token (docs/decisions.md), so they stay valid rather than become poison.
 */
const couponEventSchema = z.preprocess(
  (data) =>
    isRecord(data) && data.external_id === null ? { ...data, external_id: data.token } : data,
  couponViewSchema,
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const affiliateSignedInSchema = z.object({
  affiliate_id: z.string(),
  address_hash: z.string().min(1),
  signed_in_at: z.string(),
});

export const EVENT_SCHEMAS = {
  'affiliate.created': affiliateViewSchema,
  'affiliate.updated': affiliateViewSchema,
  'affiliate.confirmed': affiliateViewSchema,
  'affiliate_link.created': linkViewSchema,
  'affiliate_link.updated': linkViewSchema,
  'campaign.created': campaignViewSchema,
  'campaign.updated': campaignViewSchema,
  'affiliate_coupon.created': couponEventSchema,
  'referral.created': referralViewSchema,
  'referral.lead': referralViewSchema,
  'referral.converted': referralViewSchema,
  'referral.updated': referralViewSchema,
  'referral.flagged': referralViewSchema,
  'referral.reviewed': referralViewSchema,
  'sale.created': saleViewSchema,
  'sale.updated': saleViewSchema,
  'sale.refunded': saleViewSchema,
  'commission.created': commissionEventSchema,
  'commission.updated': commissionEventSchema,
  'commission.paid': commissionEventSchema,
  'commission.voided': commissionEventSchema,
  'payout.created': payoutViewSchema,
  'payout.updated': payoutViewSchema,
  'payout.due': payoutViewSchema,
  'payout.paid': payoutViewSchema,
  'payout_export.created': payoutExportViewSchema,
  'payout_export.completed': payoutExportViewSchema,
  'payout_export.canceled': payoutExportViewSchema,
  'webhook_endpoint.disabled': webhookEndpointViewSchema,
  'charge.attributed': chargeAttributedSchema,
  'coupon_referral.updated': couponReferralSchema,
  'referral_counts.updated': referralCountsSchema,
  'charge.refund_attributed': chargeRefundAttributedSchema,
  'processor.received': processorReceivedSchema,
  'affiliate.email_change_requested': emailChangeRequestedSchema,
  'affiliate.signed_in': affiliateSignedInSchema,
  'affiliate.wallet_change_requested': walletChangeRequestedSchema,
} satisfies { [T in EventType]: z.ZodType<EventMap[T]> };

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_SCHEMAS, type);
}

/** The event's data as its type says, or why not (the first few issues, for the log). */
export function checkEventData<T extends EventType>(
  type: T,
  data: unknown,
): { ok: true; data: EventMap[T] } | { ok: false; reason: string } {
  const result = (EVENT_SCHEMAS[type] as z.ZodType).safeParse(data);
  if (result.success) return { ok: true, data: data as EventMap[T] };
  const reason = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, reason };
}
