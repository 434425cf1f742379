/** Affiliate and campaign events (affiliate service) → the copies embedded in payouts. */
import { STREAMS } from '@aff/contracts';
import { startConsumer, type NatsConnection, type RunningConsumer } from '@aff/messaging';
import type { Logger } from '@aff/logging';
import {
  AFFILIATE_EVENT_TYPES,
  CAMPAIGN_EVENT_TYPES,
  type ReadModels,
} from '../domain/read-models';

export function startAffiliateConsumer(
  nc: NatsConnection,
  readModels: ReadModels,
  log: Logger,
): Promise<RunningConsumer> {
  const affiliateTypes: readonly string[] = AFFILIATE_EVENT_TYPES;
  const campaignTypes: readonly string[] = CAMPAIGN_EVENT_TYPES;
  return startConsumer(nc, {
    stream: STREAMS.affiliate.name,
    durable: 'payout-affiliates',
    // In order per record; the "only if newer" write is one atomic conditional update.
    orderingKey: (event) => String((event.data as { id?: unknown }).id ?? event.id),
    filterSubjects: ['evt.affiliate.>', 'evt.campaign.>'],
    log: log.child({ consumer: 'payout-affiliates' }),
    handle: async (event, eventLog) => {
      if (affiliateTypes.includes(event.type)) {
        await readModels.applyAffiliate(event.merchant_id, event.data, eventLog);
      } else if (campaignTypes.includes(event.type)) {
        await readModels.applyCampaign(event.merchant_id, event.data, eventLog);
      }
    },
  });
}
