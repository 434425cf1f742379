/**
 * Builds referral views for a batch of records: links and affiliates from memory, the links'
 * counts from their stored counters (one batched read).
 */
import type { ReferralView } from '@aff/contracts';
import type { CatalogStore, LinkCountsReader } from './ports';
import type { ReferralRecord } from './records';
import { toReferralLink, toReferralView } from './referral-views';

export class ReferralPresenter {
  constructor(
    private readonly linkCounts: LinkCountsReader,
    private readonly catalog: CatalogStore,
  ) {}

  async present(
    merchantId: string,
    records: ReferralRecord[],
    opts: { withAffiliate?: boolean } = {},
  ): Promise<ReferralView[]> {
    const linkIds = records.map((r) => r.link_id).filter((id): id is string => Boolean(id));
    const [links, affiliates] = await Promise.all([
      this.catalog.linksByIds(merchantId, linkIds),
      opts.withAffiliate
        ? this.catalog.affiliatesByIds(merchantId, [...new Set(records.map((r) => r.affiliate_id))])
        : Promise.resolve([]),
    ]);
    const linkById = new Map(links.map((l) => [l._id, l]));
    const counts = new Map(
      await Promise.all(
        links.map(async (l) => [l._id, await this.linkCounts.get(merchantId, l._id)] as const),
      ),
    );
    const affiliateById = new Map(affiliates.map((a) => [a._id, a.view]));
    return records.map((record) => {
      const link = record.link_id ? linkById.get(record.link_id) : undefined;
      return toReferralView(
        record,
        link ? toReferralLink(link, counts.get(link._id)!) : null,
        opts.withAffiliate ? affiliateById.get(record.affiliate_id) : undefined,
      );
    });
  }

  async presentOne(
    merchantId: string,
    record: ReferralRecord,
    opts: { withAffiliate?: boolean } = {},
  ): Promise<ReferralView> {
    const [view] = await this.present(merchantId, [record], opts);
    return view!;
  }
}
