/**
 * The typed map of every domain event: a publish with the wrong payload does not compile.
 * `data` is the record as the REST API shows it, so webhooks can send it unchanged.
 */
import type { AffiliateView, CampaignView, LinkView } from './views';
import type {
  ChargeAttributed,
  ChargeRefundAttributed,
  CommissionEventView,
  CouponReferral,
  CouponView,
  PayoutView,
  ProcessorReceived,
  ReferralView,
  SaleView,
} from './views-money';
import type { PayoutExportView } from './views-export';
import type { ReferralCounts } from './referral-counts';
import type { WebhookEndpointView } from './views-webhook';

export interface EventMap {
  'affiliate.created': AffiliateView;
  'affiliate.updated': AffiliateView;
  'affiliate.confirmed': AffiliateView;
  'affiliate_link.created': LinkView;
  'affiliate_link.updated': LinkView;
  'campaign.created': CampaignView;
  'campaign.updated': CampaignView;
  'affiliate_coupon.created': CouponView;
  'referral.created': ReferralView;
  'referral.lead': ReferralView;
  'referral.converted': ReferralView;
  'referral.updated': ReferralView;
  /** A fraud signal was recorded on the referral (its `fraud_signals` show which). */
  'referral.flagged': ReferralView;
  /** The merchant approved or rejected a referral held for review. */
  'referral.reviewed': ReferralView;
  'sale.created': SaleView;
  'sale.updated': SaleView;
  'sale.refunded': SaleView;
  'commission.created': CommissionEventView;
  'commission.updated': CommissionEventView;
  'commission.paid': CommissionEventView;
  'commission.voided': CommissionEventView;
  'payout.created': PayoutView;
  'payout.updated': PayoutView;
  'payout.due': PayoutView;
  'payout.paid': PayoutView;
  'payout_export.created': PayoutExportView;
  'payout_export.completed': PayoutExportView;
  'payout_export.canceled': PayoutExportView;
  /** The webhook service disabled an endpoint whose attempts all failed for the set period. */
  'webhook_endpoint.disabled': WebhookEndpointView;
  /** Internal, never sent to merchants. */
  'charge.attributed': ChargeAttributed;
  /** Internal, no longer published (referral_counts.updated replaced it); kept: names are append-only. */
  'coupon_referral.updated': CouponReferral;
  /** Internal: absolute referral counts of the links, affiliates and coupons a batch touched. */
  'referral_counts.updated': ReferralCounts;
  'charge.refund_attributed': ChargeRefundAttributed;
  'processor.received': ProcessorReceived;
  /** Internal: an affiliate's new address awaits confirmation (the affiliate mailer sends the link). */
  'affiliate.email_change_requested': EmailChangeRequested;
  /** Internal: an affiliate signed in to the portal (tracking keeps the address hash 30 days). */
  'affiliate.signed_in': AffiliateSignedIn;
  /** Internal: a new wallet address awaits confirmation (a link goes to the account e-mail). */
  'affiliate.wallet_change_requested': WalletChangeRequested;
}

export interface AffiliateSignedIn {
  affiliate_id: string;
  /** The client address as the gateway's keyed hash under the merchant's salt, never raw. */
  address_hash: string;
  signed_in_at: string;
}

export type WalletName = 'a' | 'b';

export interface WalletChangeRequested {
  affiliate_id: string;
  wallet: WalletName;
  /** The wallet address to confirm (the affiliate's `unconfirmed_wallet_<wallet>_email`). */
  email: string;
}

export interface EmailChangeRequested {
  affiliate_id: string;
  /** The address to confirm (the affiliate's `unconfirmed_email` when requested). */
  email: string;
}
export type EventType = keyof EventMap;

/** `affiliate.created` is published on `evt.affiliate.created`. */
export function eventSubject(type: string): string {
  return `evt.${type}`;
}

/** Event types merchants can subscribe to with webhooks (DESIGN.md's catalogue). */
export const PUBLIC_EVENT_TYPES = [
  'affiliate.created',
  'affiliate.updated',
  'affiliate.confirmed',
  'affiliate_link.created',
  'affiliate_link.updated',
  'affiliate_coupon.created',
  'referral.created',
  'referral.lead',
  'referral.converted',
  'referral.flagged',
  'referral.reviewed',
  'sale.created',
  'sale.updated',
  'sale.refunded',
  'commission.created',
  'commission.updated',
  'commission.paid',
  'commission.voided',
  'payout.created',
  'payout.updated',
  'payout.due',
  'payout.paid',
  'payout_export.created',
  'payout_export.completed',
  'payout_export.canceled',
  'campaign.created',
  'campaign.updated',
  'webhook_endpoint.disabled',
] as const satisfies readonly EventType[];
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];
