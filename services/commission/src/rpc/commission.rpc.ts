import { ok, type RpcHandlers } from '@aff/messaging';
import type { CommissionQueries } from '../domain/queries';

export function commissionRpc(queries: CommissionQueries): RpcHandlers<'commission'> {
  return {
    listCommissions: async (req) => ok(await queries.list(req.merchant_id, req.query, req.expand)),
    getCommission: async (req) => ok(await queries.get(req.merchant_id, req.params.id ?? '')),
  };
}
