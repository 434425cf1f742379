/** Reading payouts: list (filters, expansions, pages) and retrieve. */
import type { Paginated, PayoutState, PayoutTotals, PayoutView } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import { listPresentation, type PayoutExpansion, type PayoutPresenter } from './payout-presenter';
import type { CallContext, PayoutStore } from './ports';

export interface PayoutListFilters {
  affiliate_id?: string;
  states: PayoutState[];
}

export class PayoutQueries {
  constructor(
    private readonly payouts: PayoutStore,
    private readonly presenter: PayoutPresenter,
  ) {}

  async list(
    ctx: CallContext,
    filters: PayoutListFilters,
    page: PageRequest,
    expand: ReadonlySet<PayoutExpansion>,
  ): Promise<Paginated<PayoutView>> {
    const result = await this.payouts.page(
      ctx.merchantId,
      {
        ...(filters.affiliate_id ? { affiliate_id: filters.affiliate_id } : {}),
        states: filters.states,
      },
      page.skip,
      page.limit,
    );
    const views = await this.presenter.present(
      ctx.merchantId,
      result.items,
      listPresentation(expand),
    );
    return paginate(views, result.total, page);
  }

  /** Unpaid payouts per currency and state (the console's payouts page). */
  async totals(ctx: CallContext): Promise<PayoutTotals> {
    return { data: await this.payouts.totals(ctx.merchantId) };
  }

  async get(ctx: CallContext, id: string): Promise<PayoutView> {
    const record = await this.payouts.findVisible(ctx.merchantId, id);
    if (!record) throw errors.notFound('Payout', id);
    return this.presenter.presentOne(ctx.merchantId, record);
  }
}
