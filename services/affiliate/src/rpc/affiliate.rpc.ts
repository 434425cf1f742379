/** Thin RPC entry points for affiliates: parse the request, call the use case, reply. */
import { checkExpand, optionalString, parsePageRequest } from '@aff/api';
import { ok, type RpcHandlers } from '@aff/messaging';
import { AFFILIATE_EXPANSIONS } from '../domain/affiliate-presenter';
import type { AffiliateUseCases } from '../domain/affiliates';
import { callContext, idParam, internalCallContext } from './call-context';

export function affiliateRpc(
  affiliates: AffiliateUseCases,
): Pick<
  RpcHandlers<'affiliate'>,
  'listAffiliates' | 'resolveLinkToken' | 'createAffiliate' | 'getAffiliate' | 'updateAffiliate'
> {
  return {
    listAffiliates: async (req, rpc) => {
      const filters = {
        campaign_id: optionalString(req.query, 'campaign_id'),
        email: optionalString(req.query, 'email'),
        processor_customer_id: optionalString(req.query, 'processor_customer_id'),
      };
      const expand = checkExpand(req.expand, AFFILIATE_EXPANSIONS);
      return ok(
        await affiliates.list(callContext(req, rpc), filters, parsePageRequest(req.query), expand),
      );
    },
    /** Internal (tracking's link directory): the typed input, no request envelope. */
    resolveLinkToken: async ({ merchant_id, token }, rpc) =>
      affiliates.resolveToken(internalCallContext(merchant_id, rpc), token),
    createAffiliate: async (req, rpc) =>
      ok(await affiliates.create(callContext(req, rpc), req.body)),
    getAffiliate: async (req, rpc) => ok(await affiliates.get(callContext(req, rpc), idParam(req))),
    updateAffiliate: async (req, rpc) =>
      ok(await affiliates.update(callContext(req, rpc), idParam(req), req.body)),
  };
}
