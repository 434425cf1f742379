/** `GET /v1/referrals` with every filter of the spec. */
import type { OperationMap, Paginated, ParsedQuery, ReferralView } from '@aff/contracts';
import { AppError, paginate, pageRequest } from '@aff/api';
import type { ReferralFilters, ReferralStore } from './ports';
import type { ReferralPresenter } from './referral-presenter';

/** The query of `GET /v1/referrals`, as the contract map's schema parsed and checked it. */
export type ReferralListQuery = ParsedQuery<OperationMap['listReferrals']>;

export class ReferralQueries {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly presenter: ReferralPresenter,
  ) {}

  async list(merchantId: string, query: ReferralListQuery): Promise<Paginated<ReferralView>> {
    const page = pageRequest(query);
    // Unfiltered, the store answers from its in-memory index of the newest referrals.
    const result = await this.referrals.page(
      merchantId,
      referralFilter(query),
      page.skip,
      page.limit,
    );
    const views = await this.presenter.present(merchantId, result.items, {
      withAffiliate: query.expand?.includes('affiliate') ?? false,
    });
    return paginate(views, result.total, page);
  }
}

/** The given filters only; a window whose start is after its end is a 400. */
export function referralFilter(query: ReferralListQuery): ReferralFilters {
  const filter: ReferralFilters = {};
  if (query.affiliate_id) filter.affiliate_id = query.affiliate_id;
  if (query.conversion_state?.length) filter.conversion_states = query.conversion_state;
  if (query.email) filter.email = query.email.trim().toLowerCase();
  if (query.processor_customer_id) filter.processor_customer_id = query.processor_customer_id;
  if (query.flagged !== undefined) filter.flagged = query.flagged;
  if (query.review_state) filter.review_state = query.review_state;
  const { updated_since: since, updated_until: until } = query;
  if (since && until && since > until) {
    throw new AppError('bad_request', 'updated_since must not be after updated_until');
  }
  if (since) filter.updated_since = since;
  if (until) filter.updated_until = until;
  return filter;
}
