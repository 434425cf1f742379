/** Pure money rules: sale amounts, the commission a campaign grants, refunds, due dates. */
import type { CampaignView, ProcessorCharge } from '@aff/contracts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SaleAmounts {
  charge_amount_cents: number;
  tax_amount_cents: number;
  refund_amount_cents: number;
  sale_amount_cents: number;
}

/** sale = charge − tax − refunds, never below zero. */
export function saleAmounts(charge: ProcessorCharge): SaleAmounts {
  const tax = charge.tax ?? 0;
  const refund = charge.amount_refunded ?? 0;
  return {
    charge_amount_cents: charge.amount,
    tax_amount_cents: tax,
    refund_amount_cents: refund,
    sale_amount_cents: Math.max(0, charge.amount - tax - refund),
  };
}

export interface CommissionTerms {
  amount: number;
  currency: string;
}

/** What the campaign pays for a sale: a percentage of it (rounded), or a fixed amount. */
export function commissionFor(
  campaign: CampaignView,
  saleAmountCents: number,
  saleCurrency: string,
): CommissionTerms {
  if (campaign.reward_type === 'amount') {
    return {
      amount: campaign.commission_amount_cents ?? 0,
      currency: (campaign.commission_amount_currency ?? saleCurrency).toUpperCase(),
    };
  }
  return {
    amount: Math.round((saleAmountCents * (campaign.commission_percent ?? 0)) / 100),
    currency: saleCurrency.toUpperCase(),
  };
}

/**
 * Whether another commission may be earned for a referral: within `max_commission_period_months`
 * of its first conversion and below `max_commissions` (null means no limit).
 */
export function mayEarn(
  campaign: CampaignView,
  firstConversionAt: Date,
  chargedAt: Date,
  commissionsSoFar: number,
): boolean {
  if (campaign.max_commissions != null && commissionsSoFar >= campaign.max_commissions)
    return false;
  if (campaign.max_commission_period_months != null) {
    const end = new Date(firstConversionAt);
    end.setUTCMonth(end.getUTCMonth() + campaign.max_commission_period_months);
    if (chargedAt.getTime() >= end.getTime()) return false;
  }
  return true;
}

export function dueAt(chargedAt: Date, daysUntilDue: number): Date {
  return new Date(chargedAt.getTime() + daysUntilDue * DAY_MS);
}

/**
 * An unpaid commission after a refund: voided when the charge is fully refunded, otherwise
 * reduced in proportion to what is left of the sale (from the original amount, so replaying a
 * refund gives the same result).
 */
export function afterRefund(
  baseAmount: number,
  charge: ProcessorCharge,
): { voided: true } | { voided: false; amount: number } {
  const refunded = charge.amount_refunded ?? 0;
  if (refunded >= charge.amount) return { voided: true };
  const original = Math.max(0, charge.amount - (charge.tax ?? 0));
  const remaining = saleAmounts(charge).sale_amount_cents;
  return {
    voided: false,
    amount: original === 0 ? 0 : Math.round((baseAmount * remaining) / original),
  };
}
