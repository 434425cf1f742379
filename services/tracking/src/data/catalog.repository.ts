/** Reads and idempotent, order-insensitive writes of the tracking service's read models. */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';
import { isDuplicateKeyError } from '@aff/mongo';
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

  constructor(private readonly models: CatalogModels) {}

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
    const holder = await this.models.links
      .findOne({ merchant_id: merchantId, token: link.token })
      .lean<KnownLink>()
      .exec();
    if (holder && holder._id !== link.id && (holder.updated_at ?? '') < link.updated_at) {
      this.written.forget('link', merchantId, holder._id);
      await this.models.links.deleteOne({
        _id: holder._id,
        merchant_id: merchantId,
        updated_at: holder.updated_at ?? { $exists: false },
      });
    }
    return this.models.links
      .updateOne(
        // An older event arriving late matches nothing; its upsert then hits the _id and is ignored.
        { _id: link.id, merchant_id: merchantId, updated_at: { $not: { $gt: link.updated_at } } },
        {
          $set: {
            token: link.token,
            url: link.url,
            affiliate_id: link.affiliate_id,
            updated_at: link.updated_at,
          },
          $setOnInsert: { created_at: new Date(link.created_at) },
        },
        { upsert: true },
      )
      .then(() => true, ignoreDuplicate);
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
    await this.models.coupons
      .updateOne(
        { _id: coupon.id, merchant_id: merchantId },
        { $set: { code: couponCodeOf(coupon), affiliate_id: coupon.affiliate_id } },
        { upsert: true },
      )
      .catch(ignoreDuplicate);
  }

  linkByToken(merchantId: string, token: string): Promise<KnownLink | null> {
    return this.models.links.findOne({ merchant_id: merchantId, token }).lean<KnownLink>().exec();
  }

  linksByIds(merchantId: string, ids: string[]): Promise<KnownLink[]> {
    return this.models.links
      .find({ merchant_id: merchantId, _id: { $in: ids } })
      .lean<KnownLink[]>()
      .exec();
  }

  /** The affiliate's first link, which coupon referrals are shown with. */
  firstLinkOf(merchantId: string, affiliateId: string): Promise<KnownLink | null> {
    return this.models.links
      .findOne({ merchant_id: merchantId, affiliate_id: affiliateId })
      .sort({ created_at: 1 })
      .lean<KnownLink>()
      .exec();
  }

  affiliate(merchantId: string, id: string): Promise<KnownAffiliate | null> {
    return this.models.affiliates
      .findOne({ _id: id, merchant_id: merchantId })
      .lean<KnownAffiliate>()
      .exec();
  }

  affiliatesByIds(merchantId: string, ids: string[]): Promise<KnownAffiliate[]> {
    return this.models.affiliates
      .find({ merchant_id: merchantId, _id: { $in: ids } })
      .lean<KnownAffiliate[]>()
      .exec();
  }

  campaign(merchantId: string, id: string): Promise<KnownCampaign | null> {
    return this.models.campaigns
      .findOne({ _id: id, merchant_id: merchantId })
      .lean<KnownCampaign>()
      .exec();
  }

  couponByCode(merchantId: string, code: string) {
    return this.models.coupons
      .findOne({ merchant_id: merchantId, code })
      .lean<KnownCoupon>()
      .exec();
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
    const model = kind === 'affiliate' ? this.models.affiliates : this.models.campaigns;
    return this.written.write(kind, merchantId, id, updatedAt, () =>
      (model as CatalogModels['campaigns'])
        .updateOne(
          { _id: id, merchant_id: merchantId, updated_at: { $not: { $gt: updatedAt } } },
          { $set: { view, updated_at: updatedAt } },
          { upsert: true },
        )
        .exec()
        .then(() => true, ignoreDuplicate),
    );
  }
}

/**
 * False for a duplicate key: a newer copy is stored, or another replica inserted the record at
 * the same moment (it won, which is fine). Either way this version is not known to be stored.
 */
function ignoreDuplicate(error: unknown): false {
  if (!isDuplicateKeyError(error)) throw error;
  return false;
}
