/** Campaign defaults and cross-field rules (pure). */
import { DEFAULT_FRAUD_POLICY, DEFAULT_IP_VELOCITY_LIMIT } from '@aff/contracts';
import type { CreateCampaignBody, FraudPolicy, UpdateCampaignBody } from '@aff/contracts';
import type { CampaignRecord } from './records';

export const DEFAULT_CAMPAIGN_NAME = 'Default campaign';
export const DEFAULT_COMMISSION_PERCENT = 20;

export type CampaignSettings = Omit<
  CampaignRecord,
  | '_id'
  | 'merchant_id'
  | 'is_default'
  | 'default_slot'
  | 'created_at'
  | 'updated_at'
  | 'fraud_policy'
  | 'ip_velocity_limit'
> & { fraud_policy: FraudPolicy; ip_velocity_limit: number };

export function defaultCampaignSettings(url: string): CampaignSettings {
  return {
    name: DEFAULT_CAMPAIGN_NAME,
    url,
    reward_type: 'percent',
    commission_percent: DEFAULT_COMMISSION_PERCENT,
    commission_amount_cents: null,
    commission_amount_currency: null,
    minimum_payout_cents: 0,
    days_until_commissions_are_due: 30,
    days_before_referrals_expire: 60,
    max_commission_period_months: null,
    max_commissions: null,
    fraud_policy: { ...DEFAULT_FRAUD_POLICY },
    ip_velocity_limit: DEFAULT_IP_VELOCITY_LIMIT,
  };
}

/** Only the settings of a stored campaign (no ids, flags or outbox). */
export function campaignSettingsOf(record: CampaignRecord): CampaignSettings {
  return {
    name: record.name,
    url: record.url,
    reward_type: record.reward_type,
    commission_percent: record.commission_percent,
    commission_amount_cents: record.commission_amount_cents,
    commission_amount_currency: record.commission_amount_currency,
    minimum_payout_cents: record.minimum_payout_cents,
    days_until_commissions_are_due: record.days_until_commissions_are_due,
    days_before_referrals_expire: record.days_before_referrals_expire,
    max_commission_period_months: record.max_commission_period_months,
    max_commissions: record.max_commissions,
    // Campaigns stored before fraud policies existed get the defaults.
    fraud_policy: { ...DEFAULT_FRAUD_POLICY, ...record.fraud_policy },
    ip_velocity_limit: record.ip_velocity_limit ?? DEFAULT_IP_VELOCITY_LIMIT,
  };
}

/** Applies a create or update body over existing (or default) settings. Absent fields keep their value. */
export function applyCampaignChanges(
  base: CampaignSettings,
  body: CreateCampaignBody | UpdateCampaignBody,
): CampaignSettings {
  const next: CampaignSettings = { ...base };
  if (body.name !== undefined && body.name !== null) next.name = body.name;
  if (body.url) next.url = body.url;
  if (body.reward_type) next.reward_type = body.reward_type;
  if (body.commission_percent !== undefined) next.commission_percent = body.commission_percent;
  if (body.commission_amount_cents !== undefined)
    next.commission_amount_cents = body.commission_amount_cents;
  if (body.commission_amount_currency !== undefined)
    next.commission_amount_currency = body.commission_amount_currency;
  if (body.minimum_payout_cents != null) next.minimum_payout_cents = body.minimum_payout_cents;
  if (body.days_until_commissions_are_due != null)
    next.days_until_commissions_are_due = body.days_until_commissions_are_due;
  if (body.days_before_referrals_expire != null)
    next.days_before_referrals_expire = body.days_before_referrals_expire;
  if (body.max_commission_period_months !== undefined)
    next.max_commission_period_months = body.max_commission_period_months;
  if (body.max_commissions !== undefined) next.max_commissions = body.max_commissions;
  if (body.fraud_policy) {
    const given = Object.entries(body.fraud_policy).filter(([, action]) => action !== undefined);
    next.fraud_policy = { ...next.fraud_policy, ...Object.fromEntries(given) };
  }
  if (body.ip_velocity_limit != null) next.ip_velocity_limit = body.ip_velocity_limit;
  return next;
}

/** Messages for settings that are each valid alone but not together. */
export function campaignProblems(settings: CampaignSettings): string[] {
  const problems: string[] = [];
  if (settings.reward_type === 'percent' && settings.commission_percent == null) {
    problems.push("Commission percent can't be blank");
  }
  if (settings.reward_type === 'amount') {
    if (settings.commission_amount_cents == null)
      problems.push("Commission amount cents can't be blank");
    if (!settings.commission_amount_currency)
      problems.push("Commission amount currency can't be blank");
  }
  return problems;
}
