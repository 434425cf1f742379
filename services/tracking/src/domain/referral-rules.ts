/** Pure rules of referrals: expiry, liveness, state moves (fraud signals: fraud-rules.ts). */
import type { ConversionState } from '@aff/contracts';

const DAY_MS = 24 * 60 * 60 * 1000;

export function expiresAt(from: Date, daysBeforeReferralsExpire: number): Date {
  return new Date(from.getTime() + daysBeforeReferralsExpire * DAY_MS);
}

export interface ReferralLifecycle {
  conversion_state: ConversionState;
  expires_at: Date;
  deactivated_at: Date | null;
  became_conversion_at: Date | null;
}

/**
 * A referral can still earn when it is not deactivated and either has already converted
 * (recurring charges keep counting) or has not expired yet.
 */
export function isLive(referral: ReferralLifecycle, now: Date): boolean {
  if (referral.deactivated_at) return false;
  if (referral.became_conversion_at) return true;
  return new Date(referral.expires_at).getTime() > now.getTime();
}

/** A visitor becomes a lead; leads and conversions stay as they are. */
export function stateAfterLead(state: ConversionState): ConversionState {
  return state === 'visitor' ? 'lead' : state;
}

export const CAN_EARN_STATES = ['active'] as const;
export function affiliateCanEarn(state: string): boolean {
  return (CAN_EARN_STATES as readonly string[]).includes(state);
}
