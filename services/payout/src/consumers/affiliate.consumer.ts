/** Affiliate and campaign events (affiliate service) → the copies embedded in payouts. */
import { STREAMS, type AffiliateView, type CampaignView } from '@aff/contracts';
import {
  eventHandlers,
  startConsumer,
  type EventHandler,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { Logger } from '@aff/logging';
import type { ReadModels } from '../domain/read-models';

export function startAffiliateConsumer(
  nc: NatsConnection,
  readModels: ReadModels,
  log: Logger,
): Promise<RunningConsumer> {
  const affiliate: EventHandler<
    'affiliate.created' | 'affiliate.updated' | 'affiliate.confirmed'
  > = (data, { event }) => readModels.applyAffiliate(event.merchant_id, data);
  const campaign: EventHandler<'campaign.created' | 'campaign.updated'> = (data, { event }) =>
    readModels.applyCampaign(event.merchant_id, data);
  // In order per record; the "only if newer" write is one atomic conditional update.
  const byId = (data: AffiliateView | CampaignView) => data.id;
  return startConsumer(nc, {
    stream: STREAMS.affiliate.name,
    durable: 'payout-affiliates',
    log: log.child({ consumer: 'payout-affiliates' }),
    ...eventHandlers(
      {
        'affiliate.created': affiliate,
        'affiliate.updated': affiliate,
        'affiliate.confirmed': affiliate,
        'campaign.created': campaign,
        'campaign.updated': campaign,
      },
      {
        'affiliate.created': byId,
        'affiliate.updated': byId,
        'affiliate.confirmed': byId,
        'campaign.created': byId,
        'campaign.updated': byId,
      },
    ),
  });
}
