/** Internal (the merchant console's overview): the program's totals from stored counters. */
import type { RpcHandlers } from '@aff/messaging';
import type { ProgramStatsUseCase } from '../domain/program-stats';

export function programStatsRpc(
  stats: ProgramStatsUseCase,
): Pick<RpcHandlers<'affiliate'>, 'getProgramStats'> {
  return {
    getProgramStats: async ({ merchant_id, top }) => stats.get(merchant_id, top),
  };
}
