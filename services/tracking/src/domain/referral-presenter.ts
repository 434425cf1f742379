/** Builds referral views for a batch of records: link counts and affiliates in a few queries. */
import type { ReferralView } from '@aff/contracts';
import type { CatalogRepository } from '../data/catalog.repository';
import type { ReferralRepository } from '../data/referral.repository';
import type { ReferralRecord } from '../data/referral.schema';
import { toReferralLink, toReferralView } from './referral-views';

export class ReferralPresenter {
  constructor(
    private readonly referrals: ReferralRepository,
    private readonly catalog: CatalogRepository,
  ) {}

  async present(
    merchantId: string,
    records: ReferralRecord[],
    opts: { withAffiliate?: boolean } = {},
  ): Promise<ReferralView[]> {
    const linkIds = records.map((r) => r.link_id).filter((id): id is string => Boolean(id));
    const [links, counts, affiliates] = await Promise.all([
      this.catalog.linksByIds(merchantId, linkIds),
      this.referrals.linkCounts(merchantId, linkIds),
      opts.withAffiliate
        ? this.catalog.affiliatesByIds(merchantId, [...new Set(records.map((r) => r.affiliate_id))])
        : Promise.resolve([]),
    ]);
    const linkById = new Map(links.map((l) => [l._id, l]));
    const affiliateById = new Map(affiliates.map((a) => [a._id, a.view]));
    return records.map((record) => {
      const link = record.link_id ? linkById.get(record.link_id) : undefined;
      const linkCounts = record.link_id ? counts.get(record.link_id) : undefined;
      return toReferralView(
        record,
        link && linkCounts ? toReferralLink(link, linkCounts) : null,
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
