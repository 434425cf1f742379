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
    listCommissions: async (req) => ok(await queries.list(req.merchant_id, req.query, req.expand)),
    getCommission: async (req) => ok(await queries.get(req.merchant_id, req.params.id ?? '')),
    updateCommission: async (req, rpc) =>
      ok(await changes.update(callContext(req, rpc.requestId), req.params.id ?? '', req.body)),
    deleteCommission: async (req, rpc) =>
      ok(await changes.remove(callContext(req, rpc.requestId), req.params.id ?? '')),
  };
}
