/** Builds affiliate views with the expansions a caller asked for, in as few queries as possible. */
import type { AffiliateView, CampaignView, CommissionStats, LinkView } from '@aff/contracts';
import type { CampaignStore, CommissionStatsSource, LinkStore } from './ports';
import type { AffiliateRecord, CampaignRecord, LinkRecord } from './records';
import { toAffiliateView, toCampaignView, toLinkView } from './views';

export const AFFILIATE_EXPANSIONS = ['campaign', 'links', 'commission_stats'] as const;
export type AffiliateExpansion = (typeof AFFILIATE_EXPANSIONS)[number];

export class AffiliatePresenter {
  constructor(
    private readonly campaigns: CampaignStore,
    private readonly links: LinkStore,
    /** The commission service keeps `commission_stats`; asked once per page, for its ids. */
    private readonly stats?: CommissionStatsSource,
  ) {}

  async present(
    merchantId: string,
    records: AffiliateRecord[],
    expand: ReadonlySet<AffiliateExpansion>,
  ): Promise<AffiliateView[]> {
    if (records.length === 0) return [];
    const needCampaigns = expand.has('campaign') || expand.has('links');
    const campaigns = needCampaigns ? await this.campaignsById(merchantId, records) : new Map();
    const [links, stats] = await Promise.all([
      expand.has('links') ? this.linksByAffiliate(merchantId, records) : new Map(),
      expand.has('commission_stats')
        ? this.statsOf(merchantId, records)
        : ({} as Record<string, CommissionStats>),
    ]);
    return records.map((record) => {
      const campaign = campaigns.get(record.campaign_id) as CampaignRecord | undefined;
      const campaignView: CampaignView | undefined = campaign
        ? toCampaignView(campaign)
        : undefined;
      const linkViews: LinkView[] | undefined = expand.has('links')
        ? ((links.get(record._id) ?? []) as LinkRecord[]).map((link) =>
            toLinkView(link, campaign?.url ?? ''),
          )
        : undefined;
      return toAffiliateView(record, {
        ...(expand.has('campaign') && campaignView ? { campaign: campaignView } : {}),
        ...(linkViews ? { links: linkViews } : {}),
        ...(expand.has('commission_stats')
          ? { commission_stats: stats[record._id] ?? { currencies: {} } }
          : {}),
      });
    });
  }

  async presentOne(
    merchantId: string,
    record: AffiliateRecord,
    expand: ReadonlySet<AffiliateExpansion> = new Set(['campaign', 'links']),
  ): Promise<AffiliateView> {
    const [view] = await this.present(merchantId, [record], expand);
    return view!;
  }

  private async statsOf(merchantId: string, records: AffiliateRecord[]) {
    if (!this.stats) throw new Error('commission_stats asked of a presenter without a source');
    return this.stats.ofAffiliates(
      merchantId,
      records.map((r) => r._id),
    );
  }

  private async campaignsById(merchantId: string, records: AffiliateRecord[]) {
    const ids = [...new Set(records.map((r) => r.campaign_id))];
    const found = await this.campaigns.findByIds(merchantId, ids);
    return new Map(found.map((c) => [c._id, c]));
  }

  private async linksByAffiliate(merchantId: string, records: AffiliateRecord[]) {
    const ids = records.map((r) => r._id);
    const found = await this.links.findByAffiliates(merchantId, ids, 10_000);
    const byAffiliate = new Map<string, LinkRecord[]>();
    // Oldest link first: the first link is the affiliate's primary one.
    for (const link of found.reverse()) {
      const list = byAffiliate.get(link.affiliate_id) ?? [];
      list.push(link);
      byAffiliate.set(link.affiliate_id, list);
    }
    return byAffiliate;
  }
}
