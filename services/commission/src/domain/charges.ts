/**
 * Attributed charges become sales and commissions; refunds reduce or void unpaid commissions.
 * Both are idempotent by the processor charge (one sale per charge, one commission per sale), so
 * a redelivered or re-run event has no second effect.
 */
import { randomUUID } from 'node:crypto';
import { buildEvent, deterministicId } from '@aff/contracts';
import type {
  ChargeAttributed,
  ChargeRefundAttributed,
  CommissionState,
  EventEnvelope,
} from '@aff/contracts';
import { AppError } from '@aff/api';
import { afterRefund, commissionFor, dueAt, mayEarn, saleAmounts } from './commission-rules';
import { commissionEventView, toSaleView } from './views';
import {
  DuplicateError,
  type CallContext,
  type CommissionStore,
  type EventSink,
  type SaleStore,
} from './ports';
import type { HeldCommissions } from './held-commissions';
import type { CommissionRecord, SaleRecord } from './records';

const UNPAID: CommissionState[] = ['pending', 'due'];
/**
 * Deliveries of a refund whose sale is not written yet before it is let go: 0.5 s doubling up
 * to a minute between tries, so about 25 minutes. Only a refund of a charge that was never
 * attributed (it happened before its customer was) waits that long for nothing.
 */
export const REFUND_WAIT_DELIVERIES = 30;
/** A sale being written by another replica right now usually appears within this time. */
const SALE_GRACE_MS = [50, 150, 300];

export class ChargeUseCases {
  constructor(
    /** The stores relay the events they write, after the write. */
    private readonly sales: SaleStore,
    private readonly commissions: CommissionStore,
    /** Settles a commission created held whose referral was reviewed meanwhile. */
    private readonly held: Pick<HeldCommissions, 'afterCreated'>,
    /** Where a charge's `sale.created` and `commission.created` go, before its ack. */
    private readonly events: EventSink,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The sale and its commission, each written once, and their events published before the
   * charge's message is acknowledged: the message is their outbox (docs/decisions.md, "The
   * charge's input message as its outbox"). The commission is decided first and written before
   * the sale, and the sale is written already saying so (`commission_pending: false`): a refund
   * that finds the sale and no commission knows none is coming. A charge is almost always new,
   * so both are inserted without reading first (their ids follow from the charge). When either
   * was there already (a repeat, or a re-run after a run that died before acknowledging), both
   * are read and their events published again from what is stored: the stream keeps one copy
   * of an id, and every consumer drops an id it has seen.
   */
  async onAttributed(ctx: CallContext, input: ChargeAttributed): Promise<void> {
    const fresh = this.newSale(ctx, input);
    const decided = await this.decideCommission(ctx, input, fresh);
    const commissionWritten = decided ? await this.insertCommission(decided) : true;
    const saleWritten = await this.insertSale(fresh);
    if (commissionWritten && saleWritten) {
      await this.events.publish(this.createdEvents(ctx, fresh, decided), ctx.events);
      if (decided) await this.held.afterCreated(ctx, decided);
      return;
    }
    const saleId = fresh._id;
    const [stored, commission] = await Promise.all([
      this.sales.findById(ctx.merchantId, saleId),
      this.commissions.findBySale(ctx.merchantId, saleId),
    ]);
    // Both writes above succeeded or found their record: a missing one was removed since.
    if (!stored || (decided && !commission))
      throw new AppError('unavailable', `Sale ${saleId} changed meanwhile; retrying`);
    // A sale written by an earlier version before its commission was decided.
    if (stored.commission_pending) await this.sales.commissionDecided(ctx.merchantId, saleId);
    // What a run that died after its insert may have left undone, each step idempotent.
    if (commission) await this.commissions.countIfMissed(commission);
    await this.events.publish(this.createdEvents(ctx, stored, commission), ctx.events);
    if (commission) await this.held.afterCreated(ctx, commission);
  }

  /** `sale.created` and `commission.created`, with ids that follow from the sale. */
  private createdEvents(
    ctx: CallContext,
    sale: SaleRecord,
    commission: CommissionRecord | null,
  ): EventEnvelope[] {
    return [
      withId(
        buildEvent('sale.created', ctx.merchantId, toSaleView(sale)),
        `${sale._id}:sale.created`,
      ),
      ...(commission
        ? [
            withId(
              buildEvent(
                'commission.created',
                ctx.merchantId,
                commissionEventView(commission, sale),
              ),
              `${sale._id}:commission.created`,
            ),
          ]
        : []),
    ];
  }

  /** The commission the charge earns, or null (nothing written). */
  private async decideCommission(
    ctx: CallContext,
    input: ChargeAttributed,
    sale: SaleRecord,
  ): Promise<CommissionRecord | null> {
    const { campaign, affiliate, referral } = input;
    // Disabled and suspicious affiliates earn nothing new (tracking checks too; this is the last word).
    if (affiliate.state !== 'active' || referral.deactivated_at) return null;
    const firstConversion = new Date(referral.became_conversion_at ?? sale.charged_at);
    const earnedSoFar =
      campaign.max_commissions == null
        ? 0
        : await this.commissions.countNotVoided(ctx.merchantId, referral.id);
    if (!mayEarn(campaign, firstConversion, sale.charged_at, earnedSoFar)) return null;
    // Earned on the charge as attributed, never on a stored sale: on a re-run after a crash,
    // a refund may have reduced the sale meanwhile (and waits to reduce this commission next).
    const attributedAmount = saleAmounts(input.charge).sale_amount_cents;
    const terms = commissionFor(campaign, attributedAmount, sale.currency);
    if (terms.amount <= 0) return null;
    const now = this.now();
    const due = dueAt(sale.charged_at, campaign.days_until_commissions_are_due);
    // The referral awaits the merchant's review (its fraud policy said hold).
    const held = referral.review_state === 'open';
    return {
      _id: randomUUID(),
      merchant_id: ctx.merchantId,
      sale_id: sale._id,
      referral_id: referral.id,
      affiliate_id: affiliate.id,
      campaign,
      base_amount: terms.amount,
      amount: terms.amount,
      currency: terms.currency,
      state:
        !held && (campaign.days_until_commissions_are_due === 0 || due <= now) ? 'due' : 'pending',
      due_at: due,
      paid_at: null,
      voided_at: null,
      payout_id: null,
      held,
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * False when the sale's commission was there already (a concurrent or earlier run wrote it).
   * Any other duplicate key is retried, never taken for done.
   */
  private async insertCommission(record: CommissionRecord): Promise<boolean> {
    try {
      await this.commissions.insert(record, [], {});
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateError)) throw error;
      if (!(await this.commissions.findBySale(record.merchant_id, record.sale_id))) throw error;
      return false;
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
      // Only while the stored refund is smaller.
      await this.sales.recordRefund(
        ctx.merchantId,
        sale._id,
        amounts,
        saleUpdatedAt,
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
      Object.assign(sale, amounts, { updated_at: saleUpdatedAt });
    }
    const commission = await this.commissions.findBySale(ctx.merchantId, sale._id);
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
      ? { state: 'voided', voided_at: now, held: false, updated_at: updatedAt }
      : { amount: outcome.amount, updated_at: updatedAt };
    if (!outcome.voided && outcome.amount === commission.amount) return;
    const type = outcome.voided ? 'commission.voided' : 'commission.updated';
    const event = withId(
      buildEvent(type, ctx.merchantId, commissionEventView({ ...commission, ...set }, sale)),
      `${input.processor_event_id}:${type}`,
    );
    // Amounts only shrink, so a late smaller refund cannot raise a commission again.
    await this.commissions.change(
      ctx.merchantId,
      commission._id,
      outcome.voided ? { states: UNPAID } : { states: UNPAID, amountAbove: outcome.amount },
      set,
      [event],
      ctx.events,
    );
  }

  /** The sale of a charge, waiting a moment for one that another replica is writing. */
  private async saleOf(merchantId: string, chargeId: string): Promise<SaleRecord | null> {
    for (const waitMs of [0, ...SALE_GRACE_MS]) {
      if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const sale = await this.sales.findByCharge(merchantId, chargeId);
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
      // Written once its commission is written or decided against (see `onAttributed`).
      commission_pending: false,
    };
  }

  /**
   * False when the sale was there already: a concurrent or earlier run that wrote the same sale
   * first is fine, the sale is the same.
   */
  private async insertSale(sale: SaleRecord): Promise<boolean> {
    try {
      await this.sales.insert(sale, [], {});
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateError)) throw error;
      return false;
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
