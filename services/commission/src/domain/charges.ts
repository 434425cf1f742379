/**
 * Attributed charges become sales and commissions; refunds reduce or void unpaid commissions.
 * Both are idempotent by the processor charge (one sale per charge, one commission per sale), so
 * a redelivered or re-run event has no second effect.
 */
import { randomUUID } from 'node:crypto';
import { buildEvent, deterministicId } from '@aff/contracts';
import type { ChargeAttributed, ChargeRefundAttributed, EventEnvelope } from '@aff/contracts';
import { AppError } from '@aff/api';
import { BulkUpdates, isDuplicateKeyError, type TenantRepository } from '@aff/mongo';
import type { CommissionRecord } from '../data/commission.schema';
import type { SaleRecord } from '../data/sale.schema';
import { afterRefund, commissionFor, dueAt, mayEarn, saleAmounts } from './commission-rules';
import { commissionEventView, toSaleView } from './views';
import type { CallContext, EventRelay } from './ports';

const UNPAID = ['pending', 'due'];
/**
 * Deliveries of a refund whose sale is not written yet before it is let go: 0.5 s doubling up
 * to a minute between tries, so about 25 minutes. Only a refund of a charge that was never
 * attributed (it happened before its customer was) waits that long for nothing.
 */
export const REFUND_WAIT_DELIVERIES = 30;
/** A sale being written by another replica right now usually appears within this time. */
const SALE_GRACE_MS = [50, 150, 300];

export class ChargeUseCases {
  /** Clearing `commission_pending` rides on shared bulk writes. */
  private readonly bulk = new BulkUpdates();

  constructor(
    private readonly sales: TenantRepository<SaleRecord>,
    private readonly commissions: TenantRepository<CommissionRecord>,
    private readonly relay: EventRelay,
    /** Lists a new commission at once on this replica (others hear of it by its event). */
    private readonly newest: { add(merchantId: string, id: string, createdAt: Date): void },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The sale and its commission. Both ids are known up front (the sale's from the charge, the
   * commission is unique per sale), so the two reads run together, and so do the two inserts of
   * a first delivery: three round trips in a row instead of six.
   */
  async onAttributed(ctx: CallContext, input: ChargeAttributed): Promise<void> {
    const saleId = saleIdOf(ctx.merchantId, input.charge.id);
    const [stored, commission] = await Promise.all([
      this.sales.findById(ctx.merchantId, saleId),
      this.commissions.findOne(ctx.merchantId, { sale_id: saleId }),
    ]);
    const sale = stored ?? this.newSale(ctx, input);
    // Each on its own: a retry after a run that wrote only one of them writes the other.
    await Promise.all([
      stored ? undefined : this.insertSale(ctx, sale),
      commission ? undefined : this.decideCommission(ctx, input, sale),
    ]);
    // Decided (written, or none is due): refunds of this sale need not wait for one any more.
    if (sale.commission_pending !== false)
      await this.bulk.updateOne(
        this.sales.model,
        { _id: sale._id, merchant_id: ctx.merchantId },
        { $set: { commission_pending: false } },
      );
  }

  private async decideCommission(
    ctx: CallContext,
    input: ChargeAttributed,
    sale: SaleRecord,
  ): Promise<void> {
    const { campaign, affiliate, referral } = input;
    // Disabled and suspicious affiliates earn nothing new (tracking checks too; this is the last word).
    if (affiliate.state !== 'active' || referral.deactivated_at) return;
    const firstConversion = new Date(referral.became_conversion_at ?? sale.charged_at);
    const earnedSoFar =
      campaign.max_commissions == null
        ? 0
        : await this.commissions.model.countDocuments({
            merchant_id: ctx.merchantId,
            referral_id: referral.id,
            state: { $ne: 'voided' },
          });
    if (!mayEarn(campaign, firstConversion, sale.charged_at, earnedSoFar)) return;
    const terms = commissionFor(campaign, sale.sale_amount_cents, sale.currency);
    if (terms.amount <= 0) return;
    const now = this.now();
    const due = dueAt(sale.charged_at, campaign.days_until_commissions_are_due);
    const record: Omit<CommissionRecord, 'pending_events'> = {
      _id: randomUUID(),
      merchant_id: ctx.merchantId,
      sale_id: sale._id,
      referral_id: referral.id,
      affiliate_id: affiliate.id,
      campaign,
      base_amount: terms.amount,
      amount: terms.amount,
      currency: terms.currency,
      state: campaign.days_until_commissions_are_due === 0 || due <= now ? 'due' : 'pending',
      due_at: due,
      paid_at: null,
      voided_at: null,
      payout_id: null,
      created_at: now,
      updated_at: now,
    };
    const event = withId(
      buildEvent(
        'commission.created',
        ctx.merchantId,
        commissionEventView({ ...record, pending_events: [] }, sale),
      ),
      `${sale._id}:commission.created`,
    );
    try {
      const result = await this.commissions.insert(record, [event], ctx.events);
      this.newest.add(ctx.merchantId, record._id, record.created_at);
      this.relay.relay(result.pending);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // A concurrent run created it: the sale's one commission must now be there. Anything else
      // (a duplicate key of some other record) is retried, never taken for done.
      if (!(await this.commissions.findOne(ctx.merchantId, { sale_id: sale._id }))) throw error;
    }
  }

  /**
   * `deliveries`: how often this refund has arrived. Its sale may not be written yet (its charge
   * is being handled elsewhere, or comes later): retry with a delay rather than lose the refund,
   * and give up only after `REFUND_WAIT_DELIVERIES`, when its charge was never attributed.
   */
  async onRefund(ctx: CallContext, input: ChargeRefundAttributed, deliveries = 1): Promise<void> {
    const sale = await this.saleOf(ctx.merchantId, input.charge.id);
    if (!sale) {
      if (deliveries < REFUND_WAIT_DELIVERIES)
        throw new AppError('unavailable', `Sale of charge ${input.charge.id} not recorded yet`);
      return; // its charge never became a sale: nothing to reduce
    }
    const amounts = saleAmounts({
      ...input.charge,
      tax: input.charge.tax ?? sale.tax_amount_cents,
    });
    const now = this.now();
    // Refunds only grow: a smaller (older) refund arriving late changes nothing.
    if (amounts.refund_amount_cents > sale.refund_amount_cents) {
      const saleUpdatedAt = nextVersionAt(now, sale.updated_at);
      const next = { ...sale, ...amounts, updated_at: saleUpdatedAt };
      const result = await this.sales.updateIf(
        ctx.merchantId,
        sale._id,
        { refund_amount_cents: { $lt: amounts.refund_amount_cents } },
        { $set: { ...amounts, updated_at: saleUpdatedAt } },
        // `sale.updated` for consumers of any sale change, `sale.refunded` for the reason.
        [
          withId(
            buildEvent('sale.updated', ctx.merchantId, toSaleView(next)),
            `${input.processor_event_id}:sale.updated`,
          ),
          withId(
            buildEvent('sale.refunded', ctx.merchantId, toSaleView(next)),
            `${input.processor_event_id}:sale.refunded`,
          ),
        ],
        ctx.events,
      );
      if (result) this.relay.relay(result.pending);
      Object.assign(sale, amounts, { updated_at: saleUpdatedAt });
    }
    const commission = await this.commissions.findOne(ctx.merchantId, { sale_id: sale._id });
    if (!commission) {
      // Its charge is being handled elsewhere right now: the commission comes, then reduce it.
      if (sale.commission_pending && deliveries < REFUND_WAIT_DELIVERIES)
        throw new AppError('unavailable', `Commission of sale ${sale._id} not decided yet`);
      return; // the charge earned nothing: nothing to reduce
    }
    if (!UNPAID.includes(commission.state)) return; // paid commissions stay as they are
    const outcome = afterRefund(commission.base_amount, {
      ...input.charge,
      tax: sale.tax_amount_cents,
    });
    const updatedAt = nextVersionAt(now, commission.updated_at);
    const set: Partial<CommissionRecord> = outcome.voided
      ? { state: 'voided', voided_at: now, updated_at: updatedAt }
      : { amount: outcome.amount, updated_at: updatedAt };
    if (!outcome.voided && outcome.amount === commission.amount) return;
    const type = outcome.voided ? 'commission.voided' : 'commission.updated';
    const event = withId(
      buildEvent(type, ctx.merchantId, commissionEventView({ ...commission, ...set }, sale)),
      `${input.processor_event_id}:${type}`,
    );
    // Amounts only shrink, so a late smaller refund cannot raise a commission again.
    const result = await this.commissions.updateIf(
      ctx.merchantId,
      commission._id,
      outcome.voided
        ? { state: { $in: UNPAID } }
        : { state: { $in: UNPAID }, amount: { $gt: outcome.amount } },
      { $set: set },
      [event],
      ctx.events,
    );
    if (result) this.relay.relay(result.pending);
  }

  /** The sale of a charge, waiting a moment for one that another replica is writing. */
  private async saleOf(merchantId: string, chargeId: string): Promise<SaleRecord | null> {
    for (const waitMs of [0, ...SALE_GRACE_MS]) {
      if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const sale = await this.sales.findOne(merchantId, { processor_charge_id: chargeId });
      if (sale) return sale;
    }
    return null;
  }

  private newSale(ctx: CallContext, input: ChargeAttributed): SaleRecord {
    const now = this.now();
    const chargedAt = input.charge.created ? new Date(input.charge.created * 1000) : now;
    return {
      _id: saleIdOf(ctx.merchantId, input.charge.id),
      merchant_id: ctx.merchantId,
      processor_charge_id: input.charge.id,
      processor_account_id: input.processor_account_id,
      referral_id: input.referral.id,
      affiliate_id: input.affiliate.id,
      currency: input.charge.currency.toUpperCase(),
      charged_at: chargedAt,
      invoiced_at: input.charge.invoice ? chargedAt : null,
      ...saleAmounts(input.charge),
      referral: input.referral,
      affiliate: input.affiliate,
      created_at: now,
      updated_at: now,
      commission_pending: true,
      pending_events: [],
    };
  }

  /** A concurrent run that wrote the same sale first is fine: the sale is the same. */
  private async insertSale(ctx: CallContext, sale: SaleRecord): Promise<void> {
    const event = withId(
      buildEvent('sale.created', ctx.merchantId, toSaleView(sale)),
      `${sale._id}:sale.created`,
    );
    try {
      // (Its `pending_events` are replaced by the event stored with it.)
      const result = await this.sales.insert(sale, [event], ctx.events);
      this.relay.relay(result.pending);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
}

/** One sale per charge: its id follows from the charge's. */
function saleIdOf(merchantId: string, chargeId: string): string {
  return deterministicId(`${merchantId}:sale:${chargeId}`);
}

/**
 * Every new version of a record is stamped later than the one it replaces, even within one
 * millisecond: consumers keep the newest version by `updated_at`, so two versions must never tie.
 */
export function nextVersionAt(now: Date, previous: Date): Date {
  return new Date(Math.max(now.getTime(), new Date(previous).getTime() + 1));
}

function withId<T extends EventEnvelope>(event: T, seed: string): T {
  return { ...event, id: deterministicId(seed) };
}
