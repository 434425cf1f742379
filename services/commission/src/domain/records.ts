/**
 * The commission service's records as the use cases see them: plain objects, read and written
 * through the ports (ports.ts). The data layer's schemas are declared from these shapes, plus
 * the storage-only outbox field.
 */
import type { AffiliateView, CampaignView, CommissionState, ReferralView } from '@aff/contracts';

export interface SaleRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant: a processor charge is recorded once. */
  processor_charge_id: string;
  processor_account_id: string | null;
  referral_id: string;
  affiliate_id: string;
  currency: string;
  charged_at: Date;
  invoiced_at: Date | null;
  charge_amount_cents: number;
  refund_amount_cents: number;
  tax_amount_cents: number;
  sale_amount_cents: number;
  /** The referral and affiliate as they were when the charge was attributed. */
  referral: ReferralView;
  affiliate: AffiliateView;
  created_at: Date;
  updated_at: Date;
  /**
   * True from the sale's insert until its commission is written or decided against: a refund
   * that meets no commission meanwhile retries instead of missing it (see domain/charges.ts).
   */
  commission_pending?: boolean;
}

export interface CommissionRecord {
  _id: string;
  merchant_id: string;
  /** Unique per merchant: one commission per sale. */
  sale_id: string;
  referral_id: string;
  affiliate_id: string;
  /** The campaign used to calculate the commission, as it was then. */
  campaign: CampaignView;
  /** The amount when created; refunds reduce `amount` in proportion to it. */
  base_amount: number;
  amount: number;
  currency: string;
  state: CommissionState;
  due_at: Date;
  paid_at: Date | null;
  voided_at: Date | null;
  payout_id: string | null;
  /**
   * Held for a review of its referral (the campaign's fraud policy said hold): it stays
   * pending, and neither the due scheduler nor a payout nor `paid_at` touches it until the
   * review releases (approve) or voids (reject) it. Absent on older records: not held.
   */
  held?: boolean;
  created_at: Date;
  updated_at: Date;
}
