/**
 * What a link token or coupon code stands for: link, affiliate, campaign. Read models first;
 * when an affiliate was created a moment ago and its event has not arrived yet, the owner is
 * asked directly and the answer stored.
 */
import type { AffiliateView, CampaignView } from '@aff/contracts';
import type { AffiliateDirectory, CatalogStore } from './ports';
import type { KnownLink } from './records';

export interface Attribution {
  link: KnownLink | null;
  /** Set when the attribution came from a coupon code. */
  couponId?: string;
  affiliate: AffiliateView;
  campaign: CampaignView;
}

export class Catalog {
  constructor(
    private readonly repo: CatalogStore,
    private readonly directory: AffiliateDirectory,
  ) {}

  /**
   * A link whose affiliate is not known here yet counts as unknown too: the catalog events of one
   * affiliate may arrive (or be stored by the durable consumer) link first, and a visit in
   * between must not be told the link does not exist.
   */
  async byToken(merchantId: string, token: string): Promise<Attribution | null> {
    const link = await this.repo.linkByToken(merchantId, token);
    const known = link && (await this.complete(merchantId, link.affiliate_id, link));
    if (known) return known;
    const resolved = await this.directory.resolveToken(merchantId, token);
    if (!resolved) return null;
    await this.repo.saveAffiliate(merchantId, resolved.affiliate);
    await this.repo.saveLink(merchantId, resolved.link);
    const saved = await this.repo.linkByToken(merchantId, token);
    return saved && this.complete(merchantId, saved.affiliate_id, saved);
  }

  /** As `byToken`: a code unknown here, or known without its affiliate, is asked of the owner. */
  async byCouponCode(merchantId: string, code: string): Promise<Attribution | null> {
    const known = await this.fromCoupon(merchantId, code);
    if (known) return known;
    const resolved = await this.directory.resolveCouponCode(merchantId, code);
    if (!resolved) return null;
    await this.repo.saveAffiliate(merchantId, resolved.affiliate);
    await this.repo.saveCoupon(merchantId, resolved.coupon);
    return this.fromCoupon(merchantId, code);
  }

  private async fromCoupon(merchantId: string, code: string): Promise<Attribution | null> {
    const coupon = await this.repo.couponByCode(merchantId, code);
    if (!coupon) return null;
    const link = await this.repo.firstLinkOf(merchantId, coupon.affiliate_id);
    const attribution = await this.complete(merchantId, coupon.affiliate_id, link);
    return attribution && { ...attribution, couponId: coupon._id };
  }

  async byAffiliate(merchantId: string, affiliateId: string): Promise<Attribution | null> {
    return this.complete(merchantId, affiliateId, null);
  }

  private async complete(
    merchantId: string,
    affiliateId: string,
    link: KnownLink | null,
  ): Promise<Attribution | null> {
    const affiliate = await this.repo.affiliate(merchantId, affiliateId);
    if (!affiliate) return null;
    const campaignId = affiliate.view.campaign?.id;
    const campaign = campaignId ? await this.repo.campaign(merchantId, campaignId) : null;
    const campaignView = campaign?.view ?? affiliate.view.campaign;
    if (!campaignView) return null;
    return { link, affiliate: affiliate.view, campaign: campaignView };
  }
}
