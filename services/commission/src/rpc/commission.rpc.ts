import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { CommissionFilters, CommissionStatsReader } from '../domain/ports';
import type { CommissionChanges } from '../domain/commission-changes';
import type { CommissionQueries } from '../domain/queries';

export function commissionRpc(
  queries: CommissionQueries,
  changes: CommissionChanges,
  stats: CommissionStatsReader,
): RpcHandlers<'commission'> {
  return {
    listCommissions: async ({ merchant_id, query }) =>
      ok(
        await queries.list(
          merchant_id,
          { affiliate_id: query.affiliate_id, states: query.state },
          pageRequest(query),
          new Set(query.expand),
        ),
      ),
    /** Internal (the console's list): the REST list's use case with a creation-date range. */
    findCommissions: async (input) => {
      const filters: CommissionFilters = {};
      if (input.affiliate_id) filters.affiliate_id = input.affiliate_id;
      if (input.states?.length) filters.states = input.states;
      if (input.created_since) filters.created_since = new Date(input.created_since);
      if (input.created_until) filters.created_until = new Date(input.created_until);
      return queries.list(
        input.merchant_id,
        filters,
        pageRequest({ page: input.page, limit: input.limit }),
        new Set(['sale']),
      );
    },
    getCommission: async (req) => ok(await queries.get(req.merchant_id, idParam(req))),
    updateCommission: async (req, rpc) =>
      ok(await changes.update(callContext(req, rpc), idParam(req), req.body)),
    deleteCommission: async (req, rpc) =>
      ok(await changes.remove(callContext(req, rpc), idParam(req))),
    /** Internal: `commission_stats` per merchant and per affiliate (data/stats-tally.ts). */
    getCommissionTotals: async ({ merchant_id }) => ({
      commission_stats: await stats.merchantTotals(merchant_id),
    }),
    getAffiliateCommissionStats: async ({ merchant_id, affiliate_ids }) => ({
      stats: await stats.ofAffiliates(merchant_id, affiliate_ids),
    }),
  };
}
