import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { LinkUseCases } from '../domain/links';

export function linkRpc(
  links: LinkUseCases,
): Pick<RpcHandlers<'affiliate'>, 'listLinks' | 'createLink' | 'getLink' | 'updateLink'> {
  return {
    listLinks: async (req, rpc) => {
      const { token, affiliate_id } = req.query;
      return ok(
        await links.list(callContext(req, rpc), { token, affiliate_id }, pageRequest(req.query)),
      );
    },
    createLink: async (req, rpc) => ok(await links.create(callContext(req, rpc), req.body)),
    getLink: async (req, rpc) => ok(await links.get(callContext(req, rpc), idParam(req))),
    updateLink: async (req, rpc) =>
      ok(await links.update(callContext(req, rpc), idParam(req), req.body)),
  };
}
