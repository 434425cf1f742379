/** Thin RPC entry points for payout exports: the checked request to the use case, its reply back. */
import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { CreateExport } from '../domain/exports/create-export';
import type { ExportQueries } from '../domain/exports/export-queries';
import type { SettleExport } from '../domain/exports/settle-export';

export interface ExportUseCases {
  create: CreateExport;
  settle: SettleExport;
  queries: ExportQueries;
}

type ExportHandlers = Pick<
  RpcHandlers<'payout'>,
  | 'createPayoutExport'
  | 'listPayoutExports'
  | 'getPayoutExport'
  | 'getPayoutExportFile'
  | 'completePayoutExport'
  | 'cancelPayoutExport'
>;

export function payoutExportRpc({ create, settle, queries }: ExportUseCases): ExportHandlers {
  return {
    createPayoutExport: async (req, rpc) =>
      ok(await create.create(callContext(req, rpc), req.body)),
    listPayoutExports: async (req, rpc) =>
      ok(await queries.list(callContext(req, rpc), pageRequest(req.query))),
    getPayoutExport: async (req, rpc) => ok(await queries.get(callContext(req, rpc), idParam(req))),
    getPayoutExportFile: async (req, rpc) =>
      ok(await queries.file(callContext(req, rpc), idParam(req), req.params.part)),
    // Whoever's API secret completes it becomes `paid_by_id` of its payouts.
    completePayoutExport: async (req, rpc) =>
      ok(await settle.complete(callContext(req, rpc), idParam(req), req.api_key_id)),
    cancelPayoutExport: async (req, rpc) =>
      ok(await settle.cancel(callContext(req, rpc), idParam(req))),
  };
}
