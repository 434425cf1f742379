import { randomUUID } from 'node:crypto';
import type { Attribution } from './catalog';
import { customerKey, type ReferralRecord } from './records';
import { expiresAt } from './referral-rules';

/** A fresh referral of an attribution (link visit or coupon), as a visitor unless told otherwise. */
export function newReferral(
  merchantId: string,
  attribution: Attribution,
  now: Date,
  fields: Partial<ReferralRecord> = {},
): ReferralRecord {
  const id = randomUUID();
  return {
    _id: id,
    merchant_id: merchantId,
    link_id: attribution.link?._id ?? null,
    affiliate_id: attribution.affiliate.id,
    campaign_id: attribution.campaign.id,
    coupon_id: null,
    visits: 1,
    email: null,
    customer: null,
    processor_customer_id: null,
    customer_key: `none:${id}`,
    processor_account_id: null,
    conversion_state: 'visitor',
    became_lead_at: null,
    became_conversion_at: null,
    expires_at: expiresAt(now, attribution.campaign.days_before_referrals_expire),
    deactivated_at: null,
    landing_url: null,
    referrer: null,
    fraud_signals: [],
    flagged: false,
    review_state: null,
    reviewed_at: null,
    review_note: null,
    address_hash: null,
    created_at: now,
    updated_at: now,
    ...fields,
    ...(fields.processor_customer_id
      ? { customer_key: customerKey(fields.processor_customer_id) }
      : {}),
  };
}
