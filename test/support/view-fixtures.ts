/** Well-formed records as the affiliate service announces them, for component tests. */
import { randomUUID } from 'node:crypto';
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';

export function campaignView(fields: Partial<CampaignView> = {}): CampaignView {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    name: 'Default',
    url: 'https://shop.example/',
    reward_type: 'percent',
    commission_percent: 20,
    commission_amount_cents: null,
    commission_amount_currency: null,
    minimum_payout_cents: 0,
    days_until_commissions_are_due: 30,
    days_before_referrals_expire: 60,
    max_commission_period_months: null,
    max_commissions: null,
    default: true,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}

export function affiliateView(fields: Partial<AffiliateView> = {}): AffiliateView {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    created_at: now,
    updated_at: now,
    state: 'active',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `ada-${randomUUID()}@example.com`,
    confirmed_at: null,
    unconfirmed_email: null,
    wallet_a_email: null,
    wallet_a_email_confirmed_at: null,
    unconfirmed_wallet_a_email: null,
    wallet_b_email: null,
    wallet_b_email_confirmed_at: null,
    unconfirmed_wallet_b_email: null,
    receive_new_commission_notifications: false,
    sign_in_count: 0,
    processor_customer_id: null,
    processor_account_id: null,
    visitors: 0,
    leads: 0,
    conversions: 0,
    ...fields,
  };
}

export function linkView(affiliateId: string): LinkView {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    url: 'https://shop.example/',
    token: `tok${randomUUID().slice(0, 8)}`,
    visitors: 0,
    leads: 0,
    conversions: 0,
    affiliate_id: affiliateId,
    created_at: now,
    updated_at: now,
  };
}

export function couponView(affiliate: AffiliateView): CouponView {
  const now = new Date().toISOString();
  const token = `SAVE${randomUUID().slice(0, 6)}`;
  return {
    id: randomUUID(),
    token,
    external_id: token,
    affiliate_id: affiliate.id,
    campaign_id: affiliate.campaign?.id ?? randomUUID(),
    leads: 0,
    conversions: 0,
    archived: false,
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
}
