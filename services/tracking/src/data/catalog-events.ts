/**
 * The catalog's events and the record each one carries: the one table read both by the durable
 * consumer (which saves to the database and memory) and by each replica's follower (memory
 * only), so an event added to the catalog reaches both.
 */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';

/** Where a catalog event's record goes (`R`: what saving returns). */
export interface CatalogSink<R> {
  saveLink(merchantId: string, link: LinkView): R;
  saveAffiliate(merchantId: string, view: AffiliateView): R;
  saveCampaign(merchantId: string, view: CampaignView): R;
  saveCoupon(merchantId: string, coupon: CouponView): R;
}

interface Envelope {
  merchant_id: string;
}

/** Appliers per catalog event type, each handing its record to `sink`. */
export function catalogEvents<R>(sink: CatalogSink<R>) {
  const link = (data: LinkView, event: Envelope) => sink.saveLink(event.merchant_id, data);
  const affiliate = (data: AffiliateView, event: Envelope) =>
    sink.saveAffiliate(event.merchant_id, data);
  const campaign = (data: CampaignView, event: Envelope) =>
    sink.saveCampaign(event.merchant_id, data);
  return {
    'affiliate.created': affiliate,
    'affiliate.updated': affiliate,
    'affiliate_link.created': link,
    'affiliate_link.updated': link,
    'campaign.created': campaign,
    'campaign.updated': campaign,
    'affiliate_coupon.created': (data: CouponView, event: Envelope) =>
      sink.saveCoupon(event.merchant_id, data),
  };
}
