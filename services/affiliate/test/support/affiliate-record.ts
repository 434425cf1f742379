/** An affiliate's record as the affiliate service stores it, for its data-layer tests. */
import { randomUUID } from 'node:crypto';
import type { AffiliateRecord } from '../../src/data/affiliate.schema';

/** An active, confirmed affiliate of `merchantId` in campaign `c1` made `at`; `fields` win. */
export function affiliateRecord(
  merchantId: string,
  at: Date,
  fields: Partial<AffiliateRecord> = {},
): AffiliateRecord {
  const id = randomUUID();
  return {
    _id: id,
    merchant_id: merchantId,
    campaign_id: 'c1',
    state: 'active',
    first_name: 'A',
    last_name: 'B',
    email: `${id}@example.com`,
    confirmed_at: at,
    unconfirmed_email: null,
    wallet_a_email: null,
    wallet_a_email_confirmed_at: null,
    wallet_b_email: null,
    wallet_b_email_confirmed_at: null,
    receive_new_commission_notifications: true,
    sign_in_count: 0,
    processor_customer_id: null,
    customer_key: `none:${id}`,
    processor_account_id: null,
    visitors: 0,
    leads: 0,
    conversions: 0,
    created_at: at,
    updated_at: at,
    ...fields,
  } as AffiliateRecord;
}
