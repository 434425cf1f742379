import { pageRequest } from '@aff/api';
import { currentEventContext, ok, type RpcHandlers } from '@aff/messaging';
import type { RpcRequest } from '@aff/contracts';
import type { CommissionChanges } from '../domain/commission-changes';
import type { CommissionQueries } from '../domain/queries';
import type { CallContext } from '../domain/ports';

function callContext(req: RpcRequest, requestId: string): CallContext {
  return { merchantId: req.merchant_id, events: currentEventContext(requestId) };
}

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
    getCommission: async (req) => ok(await queries.get(req.merchant_id, req.params.id ?? '')),
    updateCommission: async (req, rpc) =>
      ok(await changes.update(callContext(req, rpc.requestId), req.params.id ?? '', req.body)),
    deleteCommission: async (req, rpc) =>
      ok(await changes.remove(callContext(req, rpc.requestId), req.params.id ?? '')),
  };
}
