/**
 * The commission service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. A new entry-point module
 * is spread in here, so both see it.
 */
import type { RpcHandlers } from '@aff/messaging';
import type { CommissionChanges } from '../domain/commission-changes';
import type { CommissionStatsReader } from '../domain/ports';
import type { CommissionQueries } from '../domain/queries';
import { commissionRpc } from './commission.rpc';

export interface CommissionRpcUseCases {
  queries: CommissionQueries;
  changes: CommissionChanges;
  stats: CommissionStatsReader;
}

export function commissionRpcTable(useCases: CommissionRpcUseCases): RpcHandlers<'commission'> {
  return { ...commissionRpc(useCases.queries, useCases.changes, useCases.stats) };
}
