/** `GET /v1/commissions` and `GET /v1/commissions/:id`. */
import { COMMISSION_STATES, type CommissionView, type Paginated } from '@aff/contracts';
import {
  checkExpand,
  enumList,
  errors,
  optionalString,
  paginate,
  parsePageRequest,
} from '@aff/api';
import { toCommissionView } from './views';
import type {
  CommissionFilters,
  CommissionStore,
  NewestCommissions,
  Page,
  SaleStore,
} from './ports';
import type { CommissionRecord, SaleRecord } from './records';

export const COMMISSION_EXPANSIONS = ['sale', 'campaign'] as const;

export class CommissionQueries {
  constructor(
    private readonly commissions: CommissionStore,
    private readonly sales: Pick<SaleStore, 'findById' | 'findByIds'>,
    private readonly newest: NewestCommissions,
  ) {}

  async list(
    merchantId: string,
    query: Record<string, unknown>,
    expand: string[],
  ): Promise<Paginated<CommissionView>> {
    const page = parsePageRequest(query);
    const expansions = checkExpand(expand, COMMISSION_EXPANSIONS);
    const filters: CommissionFilters = {};
    const affiliateId = optionalString(query, 'affiliate_id');
    if (affiliateId) filters.affiliate_id = affiliateId;
    const states = enumList(query, 'state', COMMISSION_STATES);
    if (states.length > 0) filters.states = states;
    const result =
      Object.keys(filters).length === 0
        ? await this.newestPage(merchantId, page.skip, page.limit)
        : await this.commissions.page(merchantId, filters, page.skip, page.limit);
    const sales = expansions.has('sale')
      ? new Map(
          (
            await this.sales.findByIds(
              merchantId,
              result.items.map((c) => c.sale_id),
            )
          ).map((s) => [s._id, s]),
        )
      : new Map<string, SaleRecord>();
    const views = result.items.map((c) =>
      toCommissionView(c, {
        campaign: expansions.has('campaign'),
        sale: sales.get(c.sale_id) ?? null,
      }),
    );
    return paginate(views, result.total, page);
  }

  /** The unfiltered list: ids from the in-memory index, records by `_id`, in its order. */
  private async newestPage(
    merchantId: string,
    skip: number,
    limit: number,
  ): Promise<Page<CommissionRecord>> {
    const ids = this.newest.page(merchantId, skip, limit);
    const records = ids.length > 0 ? await this.commissions.findByIds(merchantId, ids) : [];
    const byId = new Map(records.map((r) => [r._id, r]));
    return {
      items: ids.map((id) => byId.get(id)).filter((r): r is CommissionRecord => Boolean(r)),
      total: this.newest.count(merchantId),
    };
  }

  async get(merchantId: string, id: string): Promise<CommissionView> {
    const commission = await this.commissions.findById(merchantId, id);
    if (!commission) throw errors.notFound('Commission', id);
    const sale = await this.sales.findById(merchantId, commission.sale_id);
    return toCommissionView(commission, { campaign: true, sale });
  }
}
