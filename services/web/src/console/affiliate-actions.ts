/**
 * Owners' actions on an affiliate, from the list or its page: disable, enable, mark suspicious
 * (`updateAffiliate` with `state`), exempt from fraud checks or apply them again
 * (`updateAffiliate` with `fraud_exempt`), and a sign-in link for the affiliate's portal
 * (`issueMagicLink`, the REST API's `GET /v1/affiliates/:id/sso`: one minute, single use, so the
 * browser is sent straight to it and it is never shown in a page). The REST API's operations,
 * so `affiliate.updated` and its webhook fire as with the API.
 */
import express, { type Request, type Router } from 'express';
import { act } from './console-act';
import { answerHoldsSecret } from './form-keys';
import { backToList, rules } from './components/data-table';
import { consolePage, message, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';
import { AFFILIATES_LIST } from './affiliates-page';

const UPDATES: Record<string, Record<string, unknown>> = {
  disable: { state: 'disabled' },
  enable: { state: 'active' },
  suspicious: { state: 'suspicious' },
  exempt: { fraud_exempt: true },
  unexempt: { fraud_exempt: false },
};
export const AFFILIATE_ACTIONS = [...Object.keys(UPDATES), 'portal'] as const;

const isId = rules.id();

/** Back to the affiliate's page (with what was done) or to the list the form was on. */
function backTo(req: Request, id: string, action: string): string {
  const sent = (req.body ?? {}) as Record<string, unknown>;
  return sent.from === 'detail'
    ? `/console/affiliates/${id}?done=${action}`
    : backToList(AFFILIATES_LIST, sent);
}

export function affiliateActionRoutes({ rpc, body, once }: PageDeps): Router {
  const router = express.Router();
  router.post('/console/affiliates/:id/:action', ...ownerAction(body, once), async (req, res) => {
    const action = String(req.params.action);
    const id = isId(String(req.params.id));
    if (!id || !(AFFILIATE_ACTIONS as readonly string[]).includes(action)) {
      consolePage(res, 404, 'Not found', message('Not found', 'There is no such action.'));
      return;
    }
    await act(rpc, res, async (calls) => {
      if (action === 'portal') {
        // The redirect holds the one-time link: not kept for a replay (form-keys.ts).
        answerHoldsSecret(res);
        const link = await calls.call('issueMagicLink', { params: { id } });
        return link.sso.url;
      }
      await calls.call('updateAffiliate', { params: { id }, body: UPDATES[action]! });
      return backTo(req, id, action);
    });
  });
  return router;
}
