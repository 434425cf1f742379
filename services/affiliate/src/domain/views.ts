/** Records to the JSON the REST API returns (and events carry). Pure functions. */
import type { AffiliateView, CampaignView, CommissionStats, LinkView } from '@aff/contracts';
import { campaignSettingsOf } from './campaign-rules';
import type { AffiliateRecord, CampaignRecord, LinkRecord } from './records';

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);
const isoRequired = (date: Date): string => new Date(date).toISOString();

export function toCampaignView(record: CampaignRecord): CampaignView {
  return {
    id: record._id,
    ...campaignSettingsOf(record),
    default: record.is_default,
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
  };
}

/** The campaign's landing URL with `via=<token>` added (other query parameters kept). */
export function buildLinkUrl(campaignUrl: string, token: string): string {
  if (!URL.canParse(campaignUrl)) return `?via=${encodeURIComponent(token)}`;
  const url = new URL(campaignUrl);
  url.searchParams.set('via', token);
  return url.toString();
}

/** `campaignUrl` is used unless the link has a landing page of its own. */
export function toLinkView(record: LinkRecord, campaignUrl: string): LinkView {
  return {
    id: record._id,
    url: buildLinkUrl(record.url ?? campaignUrl, record.token),
    token: record.token,
    visitors: record.visitors,
    leads: record.leads,
    conversions: record.conversions,
    affiliate_id: record.affiliate_id,
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
  };
}

export interface AffiliateExpansions {
  campaign?: CampaignView;
  links?: LinkView[];
  commission_stats?: CommissionStats;
}

export function toAffiliateView(
  record: AffiliateRecord,
  expansions: AffiliateExpansions = {},
): AffiliateView {
  return {
    id: record._id,
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
    state: record.state,
    first_name: record.first_name,
    last_name: record.last_name,
    email: record.email,
    confirmed_at: iso(record.confirmed_at),
    unconfirmed_email: record.unconfirmed_email,
    wallet_a_email: record.wallet_a_email,
    wallet_a_email_confirmed_at: iso(record.wallet_a_email_confirmed_at),
    // Documents written before wallet confirmation existed have no such field.
    unconfirmed_wallet_a_email: record.unconfirmed_wallet_a_email ?? null,
    wallet_b_email: record.wallet_b_email,
    wallet_b_email_confirmed_at: iso(record.wallet_b_email_confirmed_at),
    unconfirmed_wallet_b_email: record.unconfirmed_wallet_b_email ?? null,
    receive_new_commission_notifications: record.receive_new_commission_notifications,
    sign_in_count: record.sign_in_count,
    processor_customer_id: record.processor_customer_id,
    processor_account_id: record.processor_account_id,
    visitors: record.visitors,
    leads: record.leads,
    conversions: record.conversions,
    fraud_exempt: record.fraud_exempt ?? false,
    ...(expansions.campaign ? { campaign: expansions.campaign } : {}),
    ...(expansions.links ? { links: expansions.links } : {}),
    ...(expansions.commission_stats ? { commission_stats: expansions.commission_stats } : {}),
  };
}
