/**
 * The tracking service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. A new entry-point module
 * is spread in here, so both see it.
 */
import type { RpcHandlers } from '@aff/messaging';
import { trackingRpc } from './tracking.rpc';

export type TrackingRpcUseCases = Parameters<typeof trackingRpc>[0];

export function trackingRpcTable(useCases: TrackingRpcUseCases): RpcHandlers<'tracking'> {
  return { ...trackingRpc(useCases) };
}
