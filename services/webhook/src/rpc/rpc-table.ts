/**
 * The webhook service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. A new entry-point module
 * is spread in here, so both see it.
 */
import type { RpcHandlers } from '@aff/messaging';
import type { DeliveryUseCases } from '../domain/deliveries';
import type { EndpointUseCases } from '../domain/endpoints';
import { deliveryRpc } from './delivery.rpc';
import { endpointRpc } from './endpoint.rpc';

export interface WebhookRpcUseCases {
  endpoints: EndpointUseCases;
  deliveries: DeliveryUseCases;
}

export function webhookRpcTable(useCases: WebhookRpcUseCases): RpcHandlers<'webhook'> {
  return { ...endpointRpc(useCases.endpoints), ...deliveryRpc(useCases.deliveries) };
}
