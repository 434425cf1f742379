/** Keeps the link, affiliate, campaign and coupon read models in step with the affiliate service. */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';
import { eventHandlers, type EventHandler } from '@aff/messaging';
import type { CatalogRepository } from '../data/catalog.repository';

/** Versions of one record in order; the read models also keep only the newest. */
export function catalogConsumer(catalog: CatalogRepository) {
  const link: EventHandler<'affiliate_link.created' | 'affiliate_link.updated'> = (
    data,
    { event },
  ) => catalog.saveLink(event.merchant_id, data);
  const affiliate: EventHandler<'affiliate.created' | 'affiliate.updated'> = (data, { event }) =>
    catalog.saveAffiliate(event.merchant_id, data);
  const campaign: EventHandler<'campaign.created' | 'campaign.updated'> = (data, { event }) =>
    catalog.saveCampaign(event.merchant_id, data);
  const byId = (data: AffiliateView | LinkView | CampaignView | CouponView) => data.id;
  return eventHandlers(
    {
      'affiliate.created': affiliate,
      'affiliate.updated': affiliate,
      'affiliate_link.created': link,
      'affiliate_link.updated': link,
      'campaign.created': campaign,
      'campaign.updated': campaign,
      'affiliate_coupon.created': (data, { event }) => catalog.saveCoupon(event.merchant_id, data),
    },
    {
      'affiliate.created': byId,
      'affiliate.updated': byId,
      'affiliate_link.created': byId,
      'affiliate_link.updated': byId,
      'campaign.created': byId,
      'campaign.updated': byId,
      'affiliate_coupon.created': byId,
    },
  );
}
