import { pageRequest } from '@aff/api';
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import type { CampaignUseCases } from '../domain/campaigns';
import { toCampaignView } from '../domain/views';

export function campaignRpc(
  campaigns: CampaignUseCases,
): Pick<
  RpcHandlers<'affiliate'>,
  'listCampaigns' | 'createCampaign' | 'getCampaign' | 'updateCampaign'
> {
  return {
    listCampaigns: async (req, rpc) =>
      ok(await campaigns.list(callContext(req, rpc), pageRequest(req.query))),
    createCampaign: async (req, rpc) => ok(await campaigns.create(callContext(req, rpc), req.body)),
    getCampaign: async (req, rpc) =>
      ok(toCampaignView(await campaigns.get(callContext(req, rpc), idParam(req)))),
    updateCampaign: async (req, rpc) =>
      ok(await campaigns.update(callContext(req, rpc), idParam(req), req.body)),
  };
}
