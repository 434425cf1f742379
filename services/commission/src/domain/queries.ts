/** `GET /v1/commissions` and `GET /v1/commissions/:id`. */
import type { FilterQuery } from 'mongoose';
import { COMMISSION_STATES, type CommissionView, type Paginated } from '@aff/contracts';
import {
  checkExpand,
  enumList,
  errors,
  optionalString,
  paginate,
  parsePageRequest,
} from '@aff/api';
import type { TenantRepository } from '@aff/mongo';
import type { CommissionRecord } from '../data/commission.schema';
import type { SaleRecord } from '../data/sale.schema';
import { toCommissionView } from './views';

export const COMMISSION_EXPANSIONS = ['sale', 'campaign'] as const;

export class CommissionQueries {
  constructor(
    private readonly commissions: TenantRepository<CommissionRecord>,
    private readonly sales: TenantRepository<SaleRecord>,
  ) {}

  async list(
    merchantId: string,
    query: Record<string, unknown>,
    expand: string[],
  ): Promise<Paginated<CommissionView>> {
    const page = parsePageRequest(query);
    const expansions = checkExpand(expand, COMMISSION_EXPANSIONS);
    const filter: FilterQuery<CommissionRecord> = {};
    const affiliateId = optionalString(query, 'affiliate_id');
    if (affiliateId) filter.affiliate_id = affiliateId;
    const states = enumList(query, 'state', COMMISSION_STATES);
    if (states.length > 0) filter.state = { $in: states };
    const result = await this.commissions.page(merchantId, filter, page.skip, page.limit);
    const sales = expansions.has('sale')
      ? new Map(
          (
            await this.sales.findMany(merchantId, {
              _id: { $in: result.items.map((c) => c.sale_id) },
            })
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
