/** Thin RPC entry points for the delivery log and redelivery. */
import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { DeliveryUseCases } from '../domain/deliveries';

export function deliveryRpc(
  deliveries: DeliveryUseCases,
): Pick<RpcHandlers<'webhook'>, 'listWebhookDeliveries' | 'redeliverWebhookDelivery'> {
  return {
    listWebhookDeliveries: async (req) => {
      const states = req.query.state ?? [];
      return ok(
        await deliveries.list(callContext(req), idParam(req), states, pageRequest(req.query)),
      );
    },
    redeliverWebhookDelivery: async (req) =>
      ok(await deliveries.redeliver(callContext(req), idParam(req))),
  };
}
