/** Referral records to the REST shape, with the link (and its counts) and optional affiliate. */
import type { AffiliateView, ReferralLink, ReferralView } from '@aff/contracts';
import type { KnownLink, LinkCounts, ReferralRecord } from './records';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toReferralLink(link: KnownLink, counts: LinkCounts): ReferralLink {
  return { id: link._id, url: link.url, token: link.token, ...counts };
}

export function toReferralView(
  record: ReferralRecord,
  link: ReferralLink | null,
  affiliate?: AffiliateView,
): ReferralView {
  return {
    id: record._id,
    link,
    visits: record.visits,
    customer: record.customer,
    ...(affiliate ? { affiliate } : {}),
    created_at: new Date(record.created_at).toISOString(),
    became_lead_at: iso(record.became_lead_at),
    became_conversion_at: iso(record.became_conversion_at),
    expires_at: new Date(record.expires_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
    deactivated_at: iso(record.deactivated_at),
    conversion_state: record.conversion_state,
    processor_account_id: record.processor_account_id,
    processor_customer_id: record.processor_customer_id,
    fraud_signals: record.fraud_signals ?? [],
    review_state: record.review_state ?? null,
    reviewed_at: iso(record.reviewed_at ?? null),
    review_note: record.review_note ?? null,
  };
}
