/** Thin RPC entry points for affiliates: the checked request to the use case, its reply back. */
import { pageRequest } from '@aff/api';
import {
  callContext,
  currentEventContext,
  idParam,
  internalCallContext,
  ok,
  type RpcHandlers,
} from '@aff/messaging';
import type { AffiliateUseCases } from '../domain/affiliates';

export function affiliateRpc(
  affiliates: AffiliateUseCases,
): Pick<
  RpcHandlers<'affiliate'>,
  | 'listAffiliates'
  | 'findAffiliates'
  | 'resolveLinkToken'
  | 'createAffiliate'
  | 'getAffiliate'
  | 'updateAffiliate'
> {
  return {
    listAffiliates: async (req, rpc) => {
      const { campaign_id, email, processor_customer_id, expand } = req.query;
      return ok(
        await affiliates.list(
          callContext(req, rpc),
          { campaign_id, email, processor_customer_id },
          pageRequest(req.query),
          new Set(expand),
        ),
      );
    },
    /** Internal (the console's list): the REST list's use case with a state and a name filter. */
    findAffiliates: async ({ merchant_id, state, name, email, page, limit }, rpc) =>
      affiliates.list(
        internalCallContext(merchant_id, currentEventContext(rpc.requestId)),
        { ...(state ? { state } : {}), ...(name ? { name } : {}), ...(email ? { email } : {}) },
        pageRequest({ page, limit }),
        new Set(),
      ),
    /** Internal (tracking's link directory): the typed input, no request envelope. */
    resolveLinkToken: async ({ merchant_id, token }, rpc) =>
      affiliates.resolveToken(
        internalCallContext(merchant_id, currentEventContext(rpc.requestId)),
        token,
      ),
    createAffiliate: async (req, rpc) =>
      ok(await affiliates.create(callContext(req, rpc), req.body)),
    getAffiliate: async (req, rpc) => ok(await affiliates.get(callContext(req, rpc), idParam(req))),
    updateAffiliate: async (req, rpc) =>
      ok(await affiliates.update(callContext(req, rpc), idParam(req), req.body)),
  };
}
