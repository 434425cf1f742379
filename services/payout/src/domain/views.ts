/** Records to the JSON the REST API returns (and events carry). Pure functions. */
import type { AffiliateView, CampaignView, PayoutCommission, PayoutView } from '@aff/contracts';
import type { AffiliateSnapshot, CommissionRecord, PayoutRecord } from './records';

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);
const isoRequired = (date: Date): string => new Date(date).toISOString();

/** `summary` in lists (the spec's eight keys); `full` adds `state` and `voided_at` (retrieve). */
export type CommissionDetail = 'summary' | 'full';

/**
 * A commission as its payout lists it. Once the payout is paid (`paid_at` set, from the pay
 * call on) its commissions are recorded as paid too, before the commission service confirms.
 */
export function toPayoutCommission(
  commission: CommissionRecord,
  payout: Pick<PayoutRecord, 'paid_at'>,
  detail: CommissionDetail,
): PayoutCommission {
  const paidByPayout = payout.paid_at !== null && commission.state !== 'voided';
  const paidAt = paidByPayout ? (commission.paid_at ?? payout.paid_at) : commission.paid_at;
  const view: PayoutCommission = {
    id: commission._id,
    currency: commission.currency,
    processor_account_id: commission.processor_account_id,
    due_at: isoRequired(commission.due_at),
    paid_at: iso(paidAt),
    created_at: isoRequired(commission.created_at),
    updated_at: isoRequired(commission.updated_at),
    amount: commission.amount,
  };
  if (detail === 'summary') return view;
  return {
    ...view,
    state: paidByPayout ? 'paid' : commission.state,
    voided_at: iso(commission.voided_at),
  };
}

/** The affiliate as a payout embeds it: with its campaign, without links and stats. */
export function toEmbeddedAffiliate(
  snapshot: AffiliateSnapshot,
  campaign: CampaignView | undefined,
): AffiliateView {
  return { ...snapshot.view, ...(campaign ? { campaign } : {}) };
}

export interface PayoutExpansions {
  affiliate?: AffiliateView;
  commissions?: PayoutCommission[];
}

export function toPayoutView(record: PayoutRecord, expansions: PayoutExpansions = {}): PayoutView {
  return {
    id: record._id,
    currency: record.currency,
    paid_at: iso(record.paid_at),
    state: record.state,
    paid_by_id: record.paid_by_id,
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
    amount: record.amount,
    ...(expansions.affiliate ? { affiliate: expansions.affiliate } : {}),
    ...(expansions.commissions ? { commissions: expansions.commissions } : {}),
  };
}
