/** Keeps the link, affiliate, campaign and coupon read models in step with the affiliate service. */
import type {
  AffiliateView,
  CampaignView,
  CouponView,
  EventEnvelope,
  LinkView,
} from '@aff/contracts';
import type { CatalogRepository } from '../data/catalog.repository';

export const CATALOG_SUBJECTS = [
  'evt.affiliate.created',
  'evt.affiliate.updated',
  'evt.affiliate_link.created',
  'evt.affiliate_link.updated',
  'evt.campaign.created',
  'evt.campaign.updated',
  'evt.affiliate_coupon.created',
];

export function catalogHandler(catalog: CatalogRepository) {
  return async (event: EventEnvelope): Promise<void> => {
    const merchantId = event.merchant_id;
    if (event.type.startsWith('affiliate_link.'))
      return catalog.saveLink(merchantId, event.data as LinkView);
    if (event.type.startsWith('affiliate_coupon.'))
      return catalog.saveCoupon(merchantId, event.data as CouponView);
    if (event.type.startsWith('affiliate.'))
      return catalog.saveAffiliate(merchantId, event.data as AffiliateView);
    if (event.type.startsWith('campaign.'))
      return catalog.saveCampaign(merchantId, event.data as CampaignView);
  };
}
