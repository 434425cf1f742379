/** `GET /v1/commissions` and `GET /v1/commissions/:id`. */
import type { CommissionView, Paginated } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import { toCommissionView } from './views';
import type { CommissionFilters, CommissionStore, NewestCommissions, SaleStore } from './ports';
import type { SaleRecord } from './records';

/** Related objects a commission can carry (the map's `expand` of `GET /v1/commissions`). */
export type CommissionExpansion = 'sale' | 'campaign';

export class CommissionQueries {
  constructor(
    private readonly commissions: CommissionStore,
    private readonly sales: Pick<SaleStore, 'findById' | 'findByIds'>,
    private readonly newest: NewestCommissions,
  ) {}

  async list(
    merchantId: string,
    requested: CommissionFilters,
    page: PageRequest,
    expansions: ReadonlySet<CommissionExpansion>,
  ): Promise<Paginated<CommissionView>> {
    // Only the filters given: none at all is the newest-first list (cached ids, counted total).
    const filters: CommissionFilters = {};
    if (requested.affiliate_id) filters.affiliate_id = requested.affiliate_id;
    if (requested.states?.length) filters.states = requested.states;
    if (requested.created_since) filters.created_since = requested.created_since;
    if (requested.created_until) filters.created_until = requested.created_until;
    const result =
      Object.keys(filters).length === 0
        ? await this.newest.page(merchantId, page.skip, page.limit)
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

  async get(merchantId: string, id: string): Promise<CommissionView> {
    const commission = await this.commissions.findById(merchantId, id);
    if (!commission) throw errors.notFound('Commission', id);
    const sale = await this.sales.findById(merchantId, commission.sale_id);
    return toCommissionView(commission, { campaign: true, sale });
  }
}
