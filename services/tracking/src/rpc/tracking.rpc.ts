/** Thin RPC entry points of the tracking service. */
import { currentEventContext, ok, type RpcHandlers } from '@aff/messaging';
import { errors } from '@aff/api';
import type { ReferralQueries } from '../domain/referral-queries';
import type { ReferralReviews } from '../domain/referral-review';
import type { VisitUseCases } from '../domain/visits';
import type { ReferralPresenter } from '../domain/referral-presenter';
import type { ReferralStore } from '../domain/ports';

export function trackingRpc(deps: {
  visits: VisitUseCases;
  queries: ReferralQueries;
  referrals: ReferralStore;
  presenter: ReferralPresenter;
  reviews: ReferralReviews;
}): RpcHandlers<'tracking'> {
  const ctx = (merchantId: string, requestId: string) => ({
    merchantId,
    events: currentEventContext(requestId),
  });
  return {
    recordVisit: async (req, rpc) =>
      ok(
        await deps.visits.recordVisit(
          ctx(req.merchant_id, rpc.requestId),
          req.body,
          req.client_address_hash ?? null,
        ),
      ),
    recordLead: async (req, rpc) =>
      ok(
        await deps.visits.recordLead(
          ctx(req.merchant_id, rpc.requestId),
          req.body,
          req.client_address_hash ?? null,
        ),
      ),
    listReferrals: async (req) => ok(await deps.queries.list(req.merchant_id, req.query)),
    reviewReferral: async (req, rpc) =>
      ok(
        await deps.reviews.review(
          ctx(req.merchant_id, rpc.requestId),
          req.params.id ?? '',
          req.body,
        ),
      ),
    getReferral: async (req) => {
      const id = req.params.id ?? '';
      const record = await deps.referrals.findById(req.merchant_id, id);
      if (!record) throw errors.notFound('Referral', id);
      return ok(await deps.presenter.presentOne(req.merchant_id, record));
    },
  };
}
