/**
 * The catalog read models held in memory: every visit and processor event needs token → link →
 * affiliate → campaign, and asking the database each time costs more than the visit's own write.
 * Loaded whole at start, then kept current by the catalog events (see catalog-cache.ts).
 * Affiliates and campaigns keep their newest version, as the stored read models do.
 */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';
import {
  couponCodeOf,
  isNewerLink,
  type CatalogModels,
  type KnownAffiliate,
  type KnownCampaign,
  type KnownCoupon,
  type KnownLink,
} from './catalog.schema';

const key = (merchantId: string, id: string): string => `${merchantId}\u0000${id}`;

export class CatalogMemory {
  private readonly linksById = new Map<string, KnownLink>();
  private readonly linksByToken = new Map<string, KnownLink>();
  private readonly affiliates = new Map<string, KnownAffiliate>();
  private readonly campaigns = new Map<string, KnownCampaign>();
  private readonly couponsByCode = new Map<string, KnownCoupon>();

  async load(models: CatalogModels): Promise<void> {
    const [links, affiliates, campaigns, coupons] = await Promise.all([
      models.links.find().lean<KnownLink[]>().exec(),
      models.affiliates.find().lean<KnownAffiliate[]>().exec(),
      models.campaigns.find().lean<KnownCampaign[]>().exec(),
      models.coupons.find().lean<KnownCoupon[]>().exec(),
    ]);
    for (const link of links) this.putLink(link);
    for (const affiliate of affiliates) this.putAffiliate(affiliate);
    for (const campaign of campaigns) this.putCampaign(campaign);
    for (const coupon of coupons) this.putCoupon(coupon);
  }

  /**
   * Keeps the newest version of each link. A token changed: the old token stops resolving to
   * this link (unless another link holds it by now). A stale version never takes a token back.
   */
  putLink(link: KnownLink): void {
    const previous = this.linksById.get(key(link.merchant_id, link._id));
    if (previous && isNewerLink(previous, link)) return;
    if (previous && previous.token !== link.token) {
      const oldTokenKey = key(link.merchant_id, previous.token);
      if (this.linksByToken.get(oldTokenKey)?._id === link._id)
        this.linksByToken.delete(oldTokenKey);
    }
    const merged = previous ? { ...link, created_at: previous.created_at } : link;
    this.linksById.set(key(link.merchant_id, link._id), merged);
    const tokenKey = key(link.merchant_id, link.token);
    const holder = this.linksByToken.get(tokenKey);
    if (!holder || holder._id === link._id || !isNewerLink(holder, link))
      this.linksByToken.set(tokenKey, merged);
  }

  putAffiliate(record: KnownAffiliate): void {
    const current = this.affiliates.get(key(record.merchant_id, record._id));
    if (current && current.updated_at > record.updated_at) return;
    this.affiliates.set(key(record.merchant_id, record._id), record);
  }

  putCampaign(record: KnownCampaign): void {
    const current = this.campaigns.get(key(record.merchant_id, record._id));
    if (current && current.updated_at > record.updated_at) return;
    this.campaigns.set(key(record.merchant_id, record._id), record);
  }

  putCoupon(record: KnownCoupon): void {
    this.couponsByCode.set(key(record.merchant_id, record.code), record);
  }

  /** Applies a catalog event's view, as the stored read model would. */
  applyLink(merchantId: string, link: LinkView): void {
    this.putLink({
      _id: link.id,
      merchant_id: merchantId,
      affiliate_id: link.affiliate_id,
      token: link.token,
      url: link.url,
      created_at: new Date(link.created_at),
      updated_at: link.updated_at,
    });
  }

  applyAffiliate(merchantId: string, view: AffiliateView): void {
    const { links, commission_stats, ...rest } = view;
    void commission_stats;
    this.putAffiliate({
      _id: view.id,
      merchant_id: merchantId,
      view: rest as AffiliateView,
      updated_at: view.updated_at,
    });
    if (view.campaign) this.applyCampaign(merchantId, view.campaign);
    for (const link of links ?? []) this.applyLink(merchantId, link);
  }

  applyCampaign(merchantId: string, view: CampaignView): void {
    this.putCampaign({ _id: view.id, merchant_id: merchantId, view, updated_at: view.updated_at });
  }

  applyCoupon(merchantId: string, coupon: CouponView): void {
    this.putCoupon({
      _id: coupon.id,
      merchant_id: merchantId,
      code: couponCodeOf(coupon),
      affiliate_id: coupon.affiliate_id,
    });
  }

  linkByToken(merchantId: string, token: string): KnownLink | undefined {
    return this.linksByToken.get(key(merchantId, token));
  }

  /** A stored copy older than the version held here is stale (e.g. a token since changed). */
  isStale(stored: KnownLink): boolean {
    const known = this.link(stored.merchant_id, stored._id);
    return Boolean(known && isNewerLink(known, stored));
  }

  link(merchantId: string, id: string): KnownLink | undefined {
    return this.linksById.get(key(merchantId, id));
  }

  affiliate(merchantId: string, id: string): KnownAffiliate | undefined {
    return this.affiliates.get(key(merchantId, id));
  }

  campaign(merchantId: string, id: string): KnownCampaign | undefined {
    return this.campaigns.get(key(merchantId, id));
  }

  couponByCode(merchantId: string, code: string): KnownCoupon | undefined {
    return this.couponsByCode.get(key(merchantId, code));
  }
}
