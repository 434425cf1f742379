/** `GET /v1/referrals` with every filter of the spec. */
import type { FilterQuery } from 'mongoose';
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
import type { ReferralRepository } from '../data/referral.repository';
import { customerKey } from '../data/referral.repository';
import type { NewestIndex } from '@aff/mongo';
import type { ReferralRecord } from '../data/referral.schema';
import type { ReferralPresenter } from './referral-presenter';

export const REFERRAL_EXPANSIONS = ['affiliate'] as const;

export class ReferralQueries {
  constructor(
    private readonly referrals: ReferralRepository,
    private readonly presenter: ReferralPresenter,
    private readonly newest: NewestIndex,
  ) {}

  async list(
    merchantId: string,
    query: Record<string, unknown>,
    expand: string[],
  ): Promise<Paginated<ReferralView>> {
    const page = parsePageRequest(query);
    const expansions = checkExpand(expand, REFERRAL_EXPANSIONS);
    const filter = referralFilter(query);
    const result =
      Object.keys(filter).length === 0
        ? await this.newestPage(merchantId, page.skip, page.limit)
        : await this.referrals.page(merchantId, filter, page.skip, page.limit);
    const views = await this.presenter.present(merchantId, result.items, {
      withAffiliate: expansions.has('affiliate'),
    });
    return paginate(views, result.total, page);
  }

  /** The unfiltered list: ids from the in-memory index, records by `_id`, in its order. */
  private async newestPage(merchantId: string, skip: number, limit: number) {
    const ids = this.newest.page(merchantId, skip, limit);
    const records = ids.length > 0 ? await this.referrals.findByIds(merchantId, ids) : [];
    const byId = new Map(records.map((r) => [r._id, r]));
    return {
      items: ids.map((id) => byId.get(id)).filter((r): r is ReferralRecord => Boolean(r)),
      total: this.newest.count(merchantId),
    };
  }
}

/** Query parameters to a MongoDB filter; every value is checked, so junk is a 400, not a 500. */
export function referralFilter(query: Record<string, unknown>): FilterQuery<ReferralRecord> {
  const filter: FilterQuery<ReferralRecord> = {};
  const affiliateId = optionalString(query, 'affiliate_id');
  if (affiliateId) filter.affiliate_id = affiliateId;
  const states = enumList(query, 'conversion_state', CONVERSION_STATES);
  if (states.length > 0) filter.conversion_state = { $in: states };
  const email = optionalString(query, 'email');
  if (email) filter.email = email.trim().toLowerCase();
  const customer = optionalString(query, 'processor_customer_id');
  if (customer) filter.customer_key = customerKey(customer);
  const since = optionalTimestamp(query, 'updated_since');
  const until = optionalTimestamp(query, 'updated_until');
  if (since && until && since > until) {
    throw new AppError('bad_request', 'updated_since must not be after updated_until');
  }
  if (since || until) {
    filter.updated_at = { ...(since ? { $gt: since } : {}), ...(until ? { $lt: until } : {}) };
  }
  return filter;
}
