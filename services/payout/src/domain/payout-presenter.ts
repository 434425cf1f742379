/** Builds payout views with the expansions asked for, in as few queries as possible. */
import type { AffiliateView, CampaignView, PayoutView } from '@aff/contracts';
import type { AffiliateSnapshots, CampaignSnapshots, CommissionCopies } from './ports';
import type { CommissionRecord, PayoutRecord } from './records';
import {
  toEmbeddedAffiliate,
  toPayoutCommission,
  toPayoutView,
  type CommissionDetail,
} from './views';

export const PAYOUT_EXPANSIONS = ['affiliate', 'commissions'] as const;
export type PayoutExpansion = (typeof PAYOUT_EXPANSIONS)[number];

export interface Presentation {
  affiliate: boolean;
  commissions: CommissionDetail | 'none';
}

/** A retrieved payout, the pay answer and event data: everything, commissions in full. */
export const FULL: Presentation = { affiliate: true, commissions: 'full' };

/** In lists, expansions are opt-in and commissions show the spec's summary keys. */
export function listPresentation(expand: ReadonlySet<PayoutExpansion>): Presentation {
  return {
    affiliate: expand.has('affiliate'),
    commissions: expand.has('commissions') ? 'summary' : 'none',
  };
}

export class PayoutPresenter {
  constructor(
    private readonly commissions: Pick<CommissionCopies, 'findByIds'>,
    private readonly affiliates: AffiliateSnapshots,
    private readonly campaigns: CampaignSnapshots,
  ) {}

  async present(
    merchantId: string,
    records: PayoutRecord[],
    how: Presentation,
    /** Commissions already read by the caller (so the view matches the figures it computed). */
    known: CommissionRecord[] = [],
  ): Promise<PayoutView[]> {
    if (records.length === 0) return [];
    const affiliates = how.affiliate
      ? await this.affiliatesById(
          merchantId,
          records.map((r) => r.affiliate_id),
        )
      : new Map<string, AffiliateView>();
    const commissions =
      how.commissions === 'none'
        ? new Map<string, CommissionRecord>()
        : await this.commissionsById(merchantId, records, known);
    return records.map((record) => {
      const affiliate = affiliates.get(record.affiliate_id);
      const listed =
        how.commissions === 'none'
          ? undefined
          : record.commission_ids
              .map((id) => commissions.get(id))
              .filter((c): c is CommissionRecord => c !== undefined)
              .sort(newestFirst)
              .map((c) => toPayoutCommission(c, record, how.commissions as CommissionDetail));
      return toPayoutView(record, {
        ...(affiliate ? { affiliate } : {}),
        ...(listed ? { commissions: listed } : {}),
      });
    });
  }

  async presentOne(
    merchantId: string,
    record: PayoutRecord,
    how: Presentation = FULL,
    known: CommissionRecord[] = [],
  ): Promise<PayoutView> {
    const [view] = await this.present(merchantId, [record], how, known);
    return view!;
  }

  private async affiliatesById(merchantId: string, ids: string[]) {
    const snapshots = await this.affiliates.findByIds(merchantId, ids);
    const campaignIds = snapshots.flatMap((s) => (s.campaign_id ? [s.campaign_id] : []));
    const campaigns = new Map<string, CampaignView>(
      (await this.campaigns.findByIds(merchantId, campaignIds)).map((c) => [c._id, c.view]),
    );
    return new Map(
      snapshots.map((s) => [
        s._id,
        toEmbeddedAffiliate(s, s.campaign_id ? campaigns.get(s.campaign_id) : undefined),
      ]),
    );
  }

  private async commissionsById(
    merchantId: string,
    records: PayoutRecord[],
    known: CommissionRecord[],
  ) {
    const byId = new Map(known.map((c) => [c._id, c]));
    const missing = records.flatMap((r) => r.commission_ids).filter((id) => !byId.has(id));
    for (const c of await this.commissions.findByIds(merchantId, [...new Set(missing)])) {
      byId.set(c._id, c);
    }
    return byId;
  }
}

function newestFirst(a: CommissionRecord, b: CommissionRecord): number {
  const byTime = new Date(b.created_at).getTime() - new Date(a.created_at).getTime();
  return byTime !== 0 ? byTime : b._id.localeCompare(a._id);
}
