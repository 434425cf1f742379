import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { CommissionChanges } from '../domain/commission-changes';
import type { CommissionQueries } from '../domain/queries';

export function commissionRpc(
  queries: CommissionQueries,
  changes: CommissionChanges,
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
    getCommission: async (req) => ok(await queries.get(req.merchant_id, idParam(req))),
    updateCommission: async (req, rpc) =>
      ok(await changes.update(callContext(req, rpc), idParam(req), req.body)),
    deleteCommission: async (req, rpc) =>
      ok(await changes.remove(callContext(req, rpc), idParam(req))),
  };
}
