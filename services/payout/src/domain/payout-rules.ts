/** The payout rules, as plain functions: bundling, state from the minimum, payable states. */
import type { CommissionState, PayoutState } from '@aff/contracts';

/** States a merchant can pay from. `pending` (below the minimum) too: paying is their call. */
export const PAYABLE_STATES = ['pending', 'due'] as const satisfies readonly PayoutState[];

export function isPayable(state: PayoutState): boolean {
  return (PAYABLE_STATES as readonly PayoutState[]).includes(state);
}

interface Amounted {
  amount: number;
  state: CommissionState;
}

/**
 * Only unpaid commissions count. A voided one stays listed in its payout but is not paid; so
 * does one the merchant paid outside the payout (`PUT /v1/commissions/:id` with `paid_at`)
 * while it was listed: it must not be paid twice. Once the payout's payment is recorded its
 * amount is fixed, so its own paying of the commissions never changes it.
 */
export function payoutAmount(commissions: readonly Amounted[]): number {
  return commissions.reduce(
    (sum, c) => (c.state === 'voided' || c.state === 'paid' ? sum : sum + c.amount),
    0,
  );
}

/** `due` once the amount reaches the campaign's minimum payout; nothing to pay is never due. */
export function stateForAmount(amount: number, minimumPayoutCents: number): 'pending' | 'due' {
  return amount > 0 && amount >= minimumPayoutCents ? 'due' : 'pending';
}

interface Bundleable {
  _id: string;
  affiliate_id: string;
  currency: string;
  state: CommissionState;
  listed: boolean;
}

export interface Bundle {
  affiliate_id: string;
  currency: string;
  commission_ids: string[];
}

/** Due commissions no payout lists, one bundle per affiliate and currency, in the given order. */
export function bundleDue(commissions: readonly Bundleable[]): Bundle[] {
  const bundles = new Map<string, Bundle>();
  for (const c of commissions) {
    if (c.state !== 'due' || c.listed) continue;
    const key = `${c.affiliate_id}\u0000${c.currency}`;
    const bundle = bundles.get(key) ?? {
      affiliate_id: c.affiliate_id,
      currency: c.currency,
      commission_ids: [],
    };
    bundle.commission_ids.push(c._id);
    bundles.set(key, bundle);
  }
  return [...bundles.values()];
}

interface WithCampaign {
  campaign_id: string | null;
  created_at: Date;
}

/**
 * The minimum payout that applies: the affiliate's current campaign's; when that campaign is not
 * known here (yet), the campaign of the affiliate's newest commission in the payout; else none.
 */
export function applicableMinimum(
  affiliateCampaignId: string | null,
  commissions: readonly WithCampaign[],
  minimumOfCampaign: (campaignId: string) => number | undefined,
): number {
  if (affiliateCampaignId) {
    const minimum = minimumOfCampaign(affiliateCampaignId);
    if (minimum !== undefined) return minimum;
  }
  const newest = [...commissions]
    .filter((c) => c.campaign_id)
    .sort((a, b) => new Date(b.created_at).getTime() - new Date(a.created_at).getTime());
  for (const c of newest) {
    const minimum = minimumOfCampaign(c.campaign_id!);
    if (minimum !== undefined) return minimum;
  }
  return 0;
}
