/**
 * The typed map of every domain event: a publish with the wrong payload does not compile.
 * `data` is the record as the REST API shows it, so webhooks can send it unchanged.
 */
import type { AffiliateView, CampaignView, LinkView } from './views';

export interface EventMap {
  'affiliate.created': AffiliateView;
  'affiliate.updated': AffiliateView;
  'affiliate.confirmed': AffiliateView;
  'affiliate_link.created': LinkView;
  'affiliate_link.updated': LinkView;
  'campaign.created': CampaignView;
  'campaign.updated': CampaignView;
}
export type EventType = keyof EventMap;

/** `affiliate.created` is published on `evt.affiliate.created`. */
export function eventSubject(type: string): string {
  return `evt.${type}`;
}
