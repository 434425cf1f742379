/**
 * The plain records this service keeps (what repositories return). Declared here so the domain
 * never depends on the storage layer; data/ schemas are built from these types.
 */
import type {
  AffiliateView,
  CampaignView,
  ConversionState,
  FraudSignal,
  ReferralCustomer,
  ReviewState,
} from '@aff/contracts';

export interface ReferralRecord {
  _id: string;
  merchant_id: string;
  link_id: string | null;
  affiliate_id: string;
  campaign_id: string;
  coupon_id: string | null;
  visits: number;
  /** Lower-cased e-mail given as a lead or by the processor customer, for the `email` filter. */
  email: string | null;
  customer: ReferralCustomer | null;
  processor_customer_id: string | null;
  /** Unique per merchant: a processor customer belongs to one referral (null-safe, see affiliate.schema). */
  customer_key: string;
  processor_account_id: string | null;
  conversion_state: ConversionState;
  became_lead_at: Date | null;
  became_conversion_at: Date | null;
  expires_at: Date;
  deactivated_at: Date | null;
  landing_url: string | null;
  referrer: string | null;
  /*
   * Fraud checks (absent on referrals stored before them: none found, no review). `flagged`
   * says whether there is any signal, for the list's filter; `address_hash` is the visit's
   * client address as the gateway's keyed hash, never shown.
   */
  fraud_signals?: FraudSignal[];
  flagged?: boolean;
  review_state?: ReviewState | null;
  reviewed_at?: Date | null;
  review_note?: string | null;
  address_hash?: string | null;
  /**
   * The processor charge and refund events this referral applied, newest last, the last
   * `APPLIED_EVENTS_KEPT` only: a repeat of one of them is a no-op with no record of its own
   * (domain/attribution.ts). Absent on referrals no charge has reached. Never shown.
   */
  applied_events?: string[];
  created_at: Date;
  updated_at: Date;
}

/** How many applied processor events a referral remembers (see `applied_events`). */
export const APPLIED_EVENTS_KEPT = 20;

/** A processor customer's uniqueness key on a referral (null-safe, see ReferralRecord). */
export function customerKey(processorCustomerId: string): string {
  return `customer:${processorCustomerId}`;
}

export interface KnownLink {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  token: string;
  url: string;
  created_at: Date;
  /** The link version (its `updated_at`); absent on copies stored before tokens could change. */
  updated_at?: string;
}

export interface KnownAffiliate {
  _id: string;
  merchant_id: string;
  /** The affiliate as the REST API shows it (with campaign, without links). */
  view: AffiliateView;
  updated_at: string;
}

export interface KnownCampaign {
  _id: string;
  merchant_id: string;
  view: CampaignView;
  updated_at: string;
}

export interface KnownCoupon {
  _id: string;
  merchant_id: string;
  code: string;
  affiliate_id: string;
}

/** Visitors, leads and conversions of one link. */
export interface LinkCounts {
  visitors: number;
  leads: number;
  conversions: number;
}
