/**
 * The payout service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. A new entry-point module
 * is spread in here, so both see it.
 */
import type { RpcHandlers } from '@aff/messaging';
import { payoutExportRpc, type ExportUseCases } from './payout-export.rpc';
import { payoutRpc, type PayoutUseCases } from './payout.rpc';

export interface PayoutRpcUseCases {
  payouts: PayoutUseCases;
  exports: ExportUseCases;
}

export function payoutRpcTable(useCases: PayoutRpcUseCases): RpcHandlers<'payout'> {
  return { ...payoutRpc(useCases.payouts), ...payoutExportRpc(useCases.exports) };
}
