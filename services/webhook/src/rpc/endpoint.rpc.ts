/** Thin RPC entry points for `/v1/webhook_endpoints`: parse the request, call the use case, reply. */
import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { EndpointUseCases } from '../domain/endpoints';

export function endpointRpc(
  endpoints: EndpointUseCases,
): Pick<
  RpcHandlers<'webhook'>,
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookEndpointSecret'
> {
  return {
    listWebhookEndpoints: async (req) =>
      ok(await endpoints.list(callContext(req), pageRequest(req.query))),
    createWebhookEndpoint: async (req) => ok(await endpoints.create(callContext(req), req.body)),
    getWebhookEndpoint: async (req) => ok(await endpoints.get(callContext(req), idParam(req))),
    updateWebhookEndpoint: async (req) =>
      ok(await endpoints.update(callContext(req), idParam(req), req.body)),
    rotateWebhookEndpointSecret: async (req) =>
      ok(await endpoints.rotateSecret(callContext(req), idParam(req))),
    deleteWebhookEndpoint: async (req) =>
      ok(await endpoints.delete(callContext(req), idParam(req))),
  };
}
