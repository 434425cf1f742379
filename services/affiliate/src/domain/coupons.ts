/** Affiliate coupons: codes customers use at checkout, attributed to the coupon's affiliate. */
import { OPERATIONS, buildEvent } from '@aff/contracts';
import type { AffiliateView, CouponView, CreateCouponBody, Paginated } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { CouponRecord } from './records';
import { DuplicateError, type AffiliateStore, type CallContext, type CouponStore } from './ports';

const CREATE_FAILED = OPERATIONS.createCoupon.invalid;
const TOKEN_TAKEN = 'Token has already been taken';

export function toCouponView(record: CouponRecord): CouponView {
  return {
    id: record._id,
    // Stored under the older names; shown under the ones clients read (docs/decisions.md).
    token: record.code,
    // Never null: clients with strict schemas read a string here (docs/decisions.md).
    external_id: record.processor_coupon_id ?? record.code,
    affiliate_id: record.affiliate_id,
    campaign_id: record.campaign_id,
    leads: record.leads,
    conversions: record.conversions,
    archived: record.archived,
    archived_at: record.archived_at ? new Date(record.archived_at).toISOString() : null,
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
  };
}

export class CouponUseCases {
  constructor(
    private readonly coupons: CouponStore,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: Pick<AffiliatePresenter, 'presentOne'>,
  ) {}

  /** `input`: the request body, checked against the contract map's schema. */
  async create(ctx: CallContext, input: CreateCouponBody): Promise<CouponView> {
    const { affiliate_id: affiliateId, token: code, external_id: externalId } = input;
    const id = ctx.newId('affiliate_coupon');
    // A re-run of a request whose answer was lost (same Idempotency-Key): answer what it made.
    const made = ctx.mayBeRerun ? await this.coupons.findById(ctx.merchantId, id) : null;
    if (made) return toCouponView(made);
    const [affiliate, taken] = await Promise.all([
      this.affiliates.findById(ctx.merchantId, affiliateId),
      this.coupons.findByCode(ctx.merchantId, code),
    ]);
    const problems = [
      ...(affiliate ? [] : ['Affiliate does not exist']),
      ...(taken ? [TOKEN_TAKEN] : []),
    ];
    if (problems.length > 0 || !affiliate) throw errors.invalid(CREATE_FAILED, problems);
    const now = new Date();
    const record: CouponRecord = {
      _id: id,
      merchant_id: ctx.merchantId,
      code,
      affiliate_id: affiliate._id,
      campaign_id: affiliate.campaign_id,
      processor_coupon_id: externalId ?? null,
      leads: 0,
      conversions: 0,
      archived: false,
      archived_at: null,
      created_at: now,
      updated_at: now,
    };
    const view = toCouponView(record);
    try {
      await this.coupons.insertWithEvents(
        record,
        [buildEvent('affiliate_coupon.created', ctx.merchantId, view)],
        ctx.events,
      );
    } catch (error) {
      if (error instanceof DuplicateError) throw errors.invalid(CREATE_FAILED, [TOKEN_TAKEN]);
      throw error;
    }
    return view;
  }

  /** For the tracking service: the coupon a code belongs to, and its affiliate (404 when unknown). */
  async resolveCode(
    ctx: CallContext,
    code: string,
  ): Promise<{ coupon: CouponView; affiliate: AffiliateView }> {
    const coupon = await this.coupons.findByCode(ctx.merchantId, code);
    const owner = coupon && (await this.affiliates.findById(ctx.merchantId, coupon.affiliate_id));
    if (!coupon || !owner) throw errors.notFound('Affiliate coupon', code);
    const affiliate = await this.presenter.presentOne(ctx.merchantId, owner);
    return { coupon: toCouponView(coupon), affiliate };
  }

  /** Another merchant's coupon answers exactly like a missing one (no tenant leak). */
  async get(ctx: CallContext, id: string): Promise<CouponView> {
    const coupon = await this.coupons.findById(ctx.merchantId, id);
    if (!coupon) throw errors.notFound('Affiliate coupon', id);
    return toCouponView(coupon);
  }

  async list(
    ctx: CallContext,
    filters: { affiliate_id?: string },
    page: PageRequest,
  ): Promise<Paginated<CouponView>> {
    const filter: { affiliate_id?: string } = {};
    if (filters.affiliate_id) filter.affiliate_id = filters.affiliate_id;
    const result = await this.coupons.page(ctx.merchantId, filter, page.skip, page.limit);
    return paginate(result.items.map(toCouponView), result.total, page);
  }
}
