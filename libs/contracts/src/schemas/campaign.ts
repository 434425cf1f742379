/** Request bodies of campaign operations. Cross-field rules (reward type needs its amount) live here too. */
import { z } from 'zod';
import {
  nonBlankTextIfPresent,
  optionalCurrency,
  optionalEnum,
  optionalHttpUrl,
  optionalInteger,
  optionalNumber,
  requiredText,
} from './fields';
import { FRAUD_ACTIONS, type FraudSignalType } from '../fraud';

/** Only the signals given change; the others keep their action (or the default). */
const action = (type: FraudSignalType) => optionalEnum(`Fraud policy ${type}`, FRAUD_ACTIONS);
const fraudPolicyBody = z
  .strictObject(
    {
      self_referral_email: action('self_referral_email'),
      self_referral_ip: action('self_referral_ip'),
      disposable_email: action('disposable_email'),
      paid_ads: action('paid_ads'),
      ip_velocity: action('ip_velocity'),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `Fraud policy names an unknown signal type: ${issue.keys.join(', ')}`
          : 'Fraud policy must be an object of signal types and actions',
    },
  )
  .optional();

const campaignFields = {
  url: optionalHttpUrl('Url'),
  reward_type: optionalEnum('Reward type', ['percent', 'amount'] as const),
  commission_percent: optionalNumber('Commission percent', { min: 0, max: 100 }),
  commission_amount_cents: optionalInteger('Commission amount cents', { min: 0 }),
  commission_amount_currency: optionalCurrency('Commission amount currency'),
  minimum_payout_cents: optionalInteger('Minimum payout cents', { min: 0 }),
  days_until_commissions_are_due: optionalInteger('Days until commissions are due', { min: 0 }),
  days_before_referrals_expire: optionalInteger('Days before referrals expire', { min: 1 }),
  max_commission_period_months: optionalInteger('Max commission period months', { min: 1 }),
  max_commissions: optionalInteger('Max commissions', { min: 1 }),
  fraud_policy: fraudPolicyBody,
  ip_velocity_limit: optionalInteger('Ip velocity limit', { min: 1 }),
};

export const createCampaignBodySchema = z.object({
  name: requiredText('Name'),
  ...campaignFields,
});
export type CreateCampaignBody = z.infer<typeof createCampaignBodySchema>;

export const updateCampaignBodySchema = z.object({
  name: nonBlankTextIfPresent('Name'),
  ...campaignFields,
});
export type UpdateCampaignBody = z.infer<typeof updateCampaignBodySchema>;
