import { optionalString, parsePageRequest } from '@aff/api';
import { ok, type RpcHandlers } from '@aff/messaging';
import type { LinkUseCases } from '../domain/links';
import { callContext, idParam } from './call-context';

export function linkRpc(
  links: LinkUseCases,
): Pick<RpcHandlers<'affiliate'>, 'listLinks' | 'createLink' | 'getLink' | 'updateLink'> {
  return {
    listLinks: async (req, rpc) => {
      const filters = {
        token: optionalString(req.query, 'token'),
        affiliate_id: optionalString(req.query, 'affiliate_id'),
      };
      return ok(await links.list(callContext(req, rpc), filters, parsePageRequest(req.query)));
    },
    createLink: async (req, rpc) => ok(await links.create(callContext(req, rpc), req.body)),
    getLink: async (req, rpc) => ok(await links.get(callContext(req, rpc), idParam(req))),
    updateLink: async (req, rpc) =>
      ok(await links.update(callContext(req, rpc), idParam(req), req.body)),
  };
}
