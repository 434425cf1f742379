/**
 * The plain records this service keeps (what repositories return). Declared here so the domain
 * never depends on the storage layer; data/ schemas are built from these types.
 */
import type { AffiliateState, FraudPolicy, WalletName } from '@aff/contracts';

export interface AffiliateRecord {
  _id: string;
  merchant_id: string;
  campaign_id: string;
  state: AffiliateState;
  first_name: string;
  last_name: string;
  email: string;
  confirmed_at: Date | null;
  unconfirmed_email: string | null;
  wallet_a_email: string | null;
  wallet_a_email_confirmed_at: Date | null;
  wallet_b_email: string | null;
  wallet_b_email_confirmed_at: Date | null;
  /**
   * A new wallet address awaiting confirmation by the affiliate's account mailbox; payouts keep
   * going to `wallet_*_email` until then. Missing (read as null) in documents written before.
   */
  unconfirmed_wallet_a_email: string | null;
  unconfirmed_wallet_b_email: string | null;
  receive_new_commission_notifications: boolean;
  sign_in_count: number;
  processor_customer_id: string | null;
  /**
   * Uniqueness key for processor_customer_id. FerretDB has no partial or sparse indexes, so a
   * unique index on a nullable field would make every null collide; non-customers get their own id.
   */
  customer_key: string;
  processor_account_id: string | null;
  visitors: number;
  leads: number;
  conversions: number;
  /** Signals are recorded but nothing is held or blocked (absent on older records: false). */
  fraud_exempt?: boolean;
  /**
   * The last move of `state` (its insert or a change), written with it so the merchant's count
   * by state applies it exactly once (data/affiliate-state-counts.ts). Absent on older records.
   */
  state_move?: StateMove;
  created_at: Date;
  updated_at: Date;
}

/** One affiliate's move between states; `id` is the id of the event written with it. */
export interface StateMove {
  id: string;
  from: AffiliateState | null;
  to: AffiliateState;
  at: Date;
}

export interface CampaignRecord {
  _id: string;
  merchant_id: string;
  name: string;
  url: string;
  reward_type: 'percent' | 'amount';
  commission_percent: number | null;
  commission_amount_cents: number | null;
  commission_amount_currency: string | null;
  minimum_payout_cents: number;
  days_until_commissions_are_due: number;
  days_before_referrals_expire: number;
  max_commission_period_months: number | null;
  max_commissions: number | null;
  /** Absent on campaigns stored before fraud policies: the defaults apply. */
  fraud_policy?: Partial<FraudPolicy>;
  ip_velocity_limit?: number;
  is_default: boolean;
  /** 'default' for the merchant's default campaign, else the campaign id: unique per merchant. */
  default_slot: string;
  created_at: Date;
  updated_at: Date;
}

export interface LinkRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  token: string;
  /** Landing page chosen for this link; null (or absent on older links) = the campaign's URL. */
  url?: string | null;
  visitors: number;
  leads: number;
  conversions: number;
  created_at: Date;
  updated_at: Date;
}

export interface CouponRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant; the code customers enter at checkout. */
  code: string;
  affiliate_id: string;
  campaign_id: string;
  processor_coupon_id: string | null;
  leads: number;
  conversions: number;
  archived: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The one live magic link of an affiliate (keyed by affiliate id, so issuing a new one replaces
 * and thereby invalidates the old). Only a hash of the token is stored.
 */
export interface SsoTokenRecord {
  _id: string;
  merchant_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}

/**
 * The one live e-mail confirmation link of an affiliate (keyed by affiliate id, so a newer
 * request replaces and thereby invalidates the older link). Only a hash of the token is stored.
 */
/** A wallet confirmation link: one per affiliate and wallet (`<affiliate id>:<wallet>`). */
export interface WalletConfirmationRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  wallet: WalletName;
  /** The wallet address this link confirms. */
  email: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}

export interface EmailConfirmationRecord {
  _id: string;
  merchant_id: string;
  /** The address this link confirms. */
  email: string;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
}
