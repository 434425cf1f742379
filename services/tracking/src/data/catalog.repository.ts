/** Reads and idempotent, order-insensitive writes of the tracking service's read models. */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';
import { ScopedRepository } from '@aff/mongo';
import { WrittenVersions } from './written-versions';
import {
  couponCodeOf,
  type CatalogModels,
  type KnownAffiliate,
  type KnownCampaign,
  type KnownCoupon,
  type KnownLink,
} from './catalog.schema';

export class CatalogRepository {
  /**
   * Versions this process has stored. The stored copies only ever move to newer versions, so a
   * version at or below one written here is in the database already: an event repeating it
   * (every affiliate event embeds its campaign and links, then each link has its own event)
   * costs no round trip. Another replica's writes only make the database newer still.
   */
  private readonly written = new WrittenVersions();

  private readonly links: ScopedRepository<KnownLink>;
  private readonly affiliates: ScopedRepository<KnownAffiliate>;
  private readonly campaigns: ScopedRepository<KnownCampaign>;
  private readonly coupons: ScopedRepository<KnownCoupon>;

  constructor(models: CatalogModels) {
    this.links = new ScopedRepository(models.links);
    this.affiliates = new ScopedRepository(models.affiliates);
    this.campaigns = new ScopedRepository(models.campaigns);
    this.coupons = new ScopedRepository(models.coupons);
  }

  /**
   * Keeps the newest version of a link (a token can change). Tokens are unique at any moment at
   * the owner, so another link holding this token in an older version has moved on since: its
   * copy is dropped (its own newer event brings it back) rather than blocking the unique index.
   */
  saveLink(merchantId: string, link: LinkView): Promise<void> {
    return this.written.write('link', merchantId, link.id, link.updated_at, () =>
      this.storeLink(merchantId, link),
    );
  }

  private async storeLink(merchantId: string, link: LinkView): Promise<boolean> {
    // Looked up by the unique {merchant_id, token} index, deleted by id: no collection scans.
    const holder = await this.links.findOne(merchantId, { token: link.token });
    if (holder && holder._id !== link.id && (holder.updated_at ?? '') < link.updated_at) {
      this.written.forget('link', merchantId, holder._id);
      await this.links.deleteOne(merchantId, {
        _id: holder._id,
        updated_at: holder.updated_at ?? { $exists: false },
      });
    }
    // An older event arriving late matches nothing; its upsert then hits the _id and is ignored.
    return this.links.upsert(
      merchantId,
      { _id: link.id, updated_at: { $not: { $gt: link.updated_at } } },
      {
        $set: {
          token: link.token,
          url: link.url,
          affiliate_id: link.affiliate_id,
          updated_at: link.updated_at,
        },
        $setOnInsert: { created_at: new Date(link.created_at) },
      },
    );
  }

  /** Keeps the newest version; an older event arriving late changes nothing. */
  async saveAffiliate(merchantId: string, view: AffiliateView): Promise<void> {
    const { links, commission_stats, ...rest } = view;
    void commission_stats;
    await this.saveNewest('affiliate', merchantId, view.id, rest, view.updated_at);
    if (view.campaign) await this.saveCampaign(merchantId, view.campaign);
    for (const link of links ?? []) await this.saveLink(merchantId, link);
  }

  async saveCampaign(merchantId: string, view: CampaignView): Promise<void> {
    await this.saveNewest('campaign', merchantId, view.id, view, view.updated_at);
  }

  async saveCoupon(merchantId: string, coupon: CouponView): Promise<void> {
    // A duplicate key (another replica inserted it at the same moment) is ignored.
    await this.coupons.upsert(
      merchantId,
      { _id: coupon.id },
      { $set: { code: couponCodeOf(coupon), affiliate_id: coupon.affiliate_id } },
    );
  }

  linkByToken(merchantId: string, token: string): Promise<KnownLink | null> {
    return this.links.findOne(merchantId, { token });
  }

  linksByIds(merchantId: string, ids: string[]): Promise<KnownLink[]> {
    return this.links.find(merchantId, { _id: { $in: ids } });
  }

  /** The affiliate's first link, which coupon referrals are shown with. */
  firstLinkOf(merchantId: string, affiliateId: string): Promise<KnownLink | null> {
    return this.links.findOne(
      merchantId,
      { affiliate_id: affiliateId },
      { sort: { created_at: 1 } },
    );
  }

  affiliate(merchantId: string, id: string): Promise<KnownAffiliate | null> {
    return this.affiliates.findById(merchantId, id);
  }

  affiliatesByIds(merchantId: string, ids: string[]): Promise<KnownAffiliate[]> {
    return this.affiliates.find(merchantId, { _id: { $in: ids } });
  }

  campaign(merchantId: string, id: string): Promise<KnownCampaign | null> {
    return this.campaigns.findById(merchantId, id);
  }

  couponByCode(merchantId: string, code: string): Promise<KnownCoupon | null> {
    return this.coupons.findOne(merchantId, { code });
  }

  /**
   * One conditional upsert: a stored copy at most as new as this version is replaced; a newer
   * one matches nothing, and the upsert's insert then collides on `_id` and is ignored.
   */
  private saveNewest(
    kind: 'affiliate' | 'campaign',
    merchantId: string,
    id: string,
    view: unknown,
    updatedAt: string,
  ): Promise<void> {
    // Both collections have one shape: `{_id, merchant_id, view, updated_at}`.
    const copies = (kind === 'affiliate' ? this.affiliates : this.campaigns) as ScopedRepository<
      KnownAffiliate | KnownCampaign
    >;
    return this.written.write(kind, merchantId, id, updatedAt, () =>
      copies.upsert(
        merchantId,
        { _id: id, updated_at: { $not: { $gt: updatedAt } } },
        { $set: { view, updated_at: updatedAt } },
      ),
    );
  }
}
