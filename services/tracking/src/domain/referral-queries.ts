/** `GET /v1/referrals` with every filter of the spec. */
import { CONVERSION_STATES, type Paginated, type ReferralView } from '@aff/contracts';
import {
  checkExpand,
  enumList,
  optionalString,
  optionalTimestamp,
  paginate,
  parsePageRequest,
  AppError,
} from '@aff/api';
import type { ReferralFilters, ReferralStore } from './ports';
import type { ReferralPresenter } from './referral-presenter';

export const REFERRAL_EXPANSIONS = ['affiliate'] as const;

export class ReferralQueries {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly presenter: ReferralPresenter,
  ) {}

  async list(
    merchantId: string,
    query: Record<string, unknown>,
    expand: string[],
  ): Promise<Paginated<ReferralView>> {
    const page = parsePageRequest(query);
    const expansions = checkExpand(expand, REFERRAL_EXPANSIONS);
    // Unfiltered, the store answers from its in-memory index of the newest referrals.
    const result = await this.referrals.page(
      merchantId,
      referralFilter(query),
      page.skip,
      page.limit,
    );
    const views = await this.presenter.present(merchantId, result.items, {
      withAffiliate: expansions.has('affiliate'),
    });
    return paginate(views, result.total, page);
  }
}

/** Query parameters to referral filters; every value is checked, so junk is a 400, not a 500. */
export function referralFilter(query: Record<string, unknown>): ReferralFilters {
  const filter: ReferralFilters = {};
  const affiliateId = optionalString(query, 'affiliate_id');
  if (affiliateId) filter.affiliate_id = affiliateId;
  const states = enumList(query, 'conversion_state', CONVERSION_STATES);
  if (states.length > 0) filter.conversion_states = states;
  const email = optionalString(query, 'email');
  if (email) filter.email = email.trim().toLowerCase();
  const customer = optionalString(query, 'processor_customer_id');
  if (customer) filter.processor_customer_id = customer;
  const since = optionalTimestamp(query, 'updated_since');
  const until = optionalTimestamp(query, 'updated_until');
  if (since && until && since > until) {
    throw new AppError('bad_request', 'updated_since must not be after updated_until');
  }
  if (since) filter.updated_since = since;
  if (until) filter.updated_until = until;
  return filter;
}
