import { ok, type RpcHandler } from '@aff/messaging';
import type { CommissionQueries } from '../domain/queries';

export function commissionRpc(queries: CommissionQueries): Record<string, RpcHandler> {
  return {
    listCommissions: async (req) => ok(await queries.list(req.merchant_id, req.query, req.expand)),
    getCommission: async (req) => ok(await queries.get(req.merchant_id, req.params.id ?? '')),
  };
}
