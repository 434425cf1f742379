/** Thin RPC entry points for the delivery log and redelivery. */
import { enumList, parsePageRequest } from '@aff/api';
import { ok, type RpcHandlers } from '@aff/messaging';
import { DELIVERY_STATES } from '../domain/records';
import type { DeliveryUseCases } from '../domain/deliveries';
import { callContext, idParam } from './call-context';

export function deliveryRpc(
  deliveries: DeliveryUseCases,
): Pick<RpcHandlers<'webhook'>, 'listWebhookDeliveries' | 'redeliverWebhookDelivery'> {
  return {
    listWebhookDeliveries: async (req) => {
      const states = enumList(req.query, 'state', DELIVERY_STATES);
      return ok(
        await deliveries.list(callContext(req), idParam(req), states, parsePageRequest(req.query)),
      );
    },
    redeliverWebhookDelivery: async (req) =>
      ok(await deliveries.redeliver(callContext(req), idParam(req))),
  };
}
