/** Thin RPC entry points of the tracking service. */
import { callContext, idParam, ok, type RpcHandlers } from '@aff/messaging';
import { errors } from '@aff/api';
import type { ReferralQueries } from '../domain/referral-queries';
import type { ReferralReviews } from '../domain/referral-review';
import type { VisitUseCases } from '../domain/visits';
import type { ReferralPresenter } from '../domain/referral-presenter';
import type { ReferralHistoryReader, ReferralStore, ReferralTotalsReader } from '../domain/ports';

export function trackingRpc(deps: {
  visits: VisitUseCases;
  queries: ReferralQueries;
  referrals: ReferralStore;
  presenter: ReferralPresenter;
  reviews: ReferralReviews;
  totals: ReferralTotalsReader;
  history: ReferralHistoryReader;
}): RpcHandlers<'tracking'> {
  return {
    recordVisit: async (req, rpc) =>
      ok(
        await deps.visits.recordVisit(
          callContext(req, rpc),
          req.body,
          req.client_address_hash ?? null,
        ),
      ),
    recordLead: async (req, rpc) =>
      ok(
        await deps.visits.recordLead(
          callContext(req, rpc),
          req.body,
          req.client_address_hash ?? null,
        ),
      ),
    listReferrals: async (req) => ok(await deps.queries.list(req.merchant_id, req.query)),
    reviewReferral: async (req, rpc) =>
      ok(await deps.reviews.review(callContext(req, rpc), idParam(req), req.body)),
    getReferral: async (req) => {
      const id = idParam(req);
      const record = await deps.referrals.findById(req.merchant_id, id);
      if (!record) throw errors.notFound('Referral', id);
      return ok(await deps.presenter.presentOne(req.merchant_id, record));
    },
    getReferralTotals: async ({ merchant_id }) => deps.totals.merchantTotals(merchant_id),
    getReferralHistory: async ({ merchant_id, days }) => ({
      midnights: await deps.history.atMidnights(merchant_id, days),
    }),
  };
}
