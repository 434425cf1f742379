/**
 * Playing tracking's neighbours in its component tests: the affiliate service announcing a
 * merchant's catalog, the gateway forwarding public and REST calls over RPC and handing over
 * verified processor events.
 */
import { randomUUID } from 'node:crypto';
import { STREAMS, buildEvent, type ProcessorEvent } from '@aff/contracts';
import { EventPublisher, type NatsConnection, type RpcClient } from '@aff/messaging';
import type { ComponentUnderTest } from '../../../../test/support/component';
import { awaitDrained, publishHandled } from '../../../../test/support/component-events';
import { affiliateView, campaignView, linkView } from '../../../../test/support/view-fixtures';

/** A merchant whose campaign, affiliate and link the affiliate service has announced. */
export async function merchantWithLink(nc: NatsConnection) {
  const merchantId = randomUUID();
  const campaign = campaignView();
  const affiliate = affiliateView({ campaign });
  const link = linkView(affiliate.id);
  await publishHandled(nc, STREAMS.affiliate.name, 'tracking-catalog', [
    buildEvent('campaign.created', merchantId, campaign),
    buildEvent('affiliate.created', merchantId, affiliate),
    buildEvent('affiliate_link.created', merchantId, link),
  ]);
  return { merchantId, campaign, affiliate, link };
}

/**
 * As the gateway forwards it: the body as the page sent it, its public key included (the gateway
 * has checked it; the contract map's schema of the visit and lead bodies names it).
 */
export function callTracking(
  rpc: RpcClient,
  operation: string,
  merchantId: string,
  fields: { body?: object; id?: string },
) {
  return rpc.call(
    'tracking',
    operation,
    {
      merchant_id: merchantId,
      params: fields.id ? { id: fields.id } : {},
      query: {},
      body: fields.body && { key: 'pk_component', ...fields.body },
      expand: [],
      api_key_id: null,
    },
    randomUUID(),
  );
}

/** A verified processor event as the gateway hands it over, and tracking has handled it. */
export async function handledProcessorEvent(
  nc: NatsConnection,
  merchantId: string,
  event: ProcessorEvent,
): Promise<void> {
  await new EventPublisher(nc).publish(buildEvent('processor.received', merchantId, { event }));
  await awaitDrained(nc, STREAMS.gateway.name, 'tracking-processor');
}

/**
 * The three above, played against the tracking component of a test file (`componentPerFile`);
 * call them inside tests and hooks, once its `beforeAll` has started it.
 */
export function neighboursOf(sut: ComponentUnderTest) {
  return {
    merchantWithLink: () => merchantWithLink(sut.component.nc),
    call: (operation: string, merchantId: string, fields: { body?: object; id?: string }) =>
      callTracking(sut.rpc, operation, merchantId, fields),
    processorEvent: (merchantId: string, event: ProcessorEvent) =>
      handledProcessorEvent(sut.component.nc, merchantId, event),
  };
}
