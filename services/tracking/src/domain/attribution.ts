/**
 * Verified payment-processor events: customers become leads of the referral (or coupon) that
 * brought them, charges of attributed customers convert the referral and go on to the
 * commission service, refunds follow them there. Each processor event takes effect once.
 * Customers are handled by `CustomerAttribution`; charges and refunds here.
 */
import { buildEvent, processorChargeSchema, processorCustomerSchema } from '@aff/contracts';
import type { ProcessorCharge, ProcessorEvent } from '@aff/contracts';
import { AppError } from '@aff/api';
import type { Catalog } from './catalog';
import { CustomerAttribution } from './customer-attribution';
import type { FraudCheck } from './fraud-check';
import { customerIdOf, metadataString, parse, seed, withId } from './processor-event-fields';
import { affiliateCanEarn, isLive } from './referral-rules';
import type { ReferralWriter } from './referral-writer';
import type { AppliedEvents, CallContext, ReferralStore } from './ports';
import type { ReferralRecord } from './records';

const CONSUMER = 'tracking-processor';

export class AttributionUseCases {
  private readonly customers: CustomerAttribution;

  constructor(
    private readonly referrals: ReferralStore,
    private readonly catalog: Catalog,
    private readonly writer: ReferralWriter,
    private readonly processed: AppliedEvents,
    private readonly platformName: string,
    fraud: FraudCheck,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.customers = new CustomerAttribution(referrals, catalog, writer, platformName, fraud, now);
  }

  /**
   * The customer's referral is read while the event is checked against those already applied:
   * every handled event needs both, and one partition handles its events one at a time, so each
   * round trip saved is latency saved for every customer behind it.
   */
  async handle(ctx: CallContext, event: ProcessorEvent): Promise<void> {
    const customerId = customerIdOf(event);
    const attached = customerId
      ? this.referrals.findByCustomer(ctx.merchantId, customerId)
      : Promise.resolve(null);
    attached.catch(() => undefined); // awaited in `apply`, unless the event was applied before
    await this.processed.once(CONSUMER, `${ctx.merchantId}:${event.id}`, () =>
      this.apply(ctx, event, attached),
    );
  }

  /**
   * `'recorded'`: a charge or refund applied to a referral lists the event on it in the same
   * write (`applied_events`), and a repeat finds it there, so no `processed_events` record is
   * written for it (docs/decisions.md, "A referral remembers the charges it applied").
   */
  private async apply(
    ctx: CallContext,
    event: ProcessorEvent,
    attached: Promise<ReferralRecord | null>,
  ): Promise<void | 'recorded'> {
    const object = event.data.object;
    switch (event.type) {
      case 'customer.created':
      case 'customer.updated':
        return this.customers.onCustomer(
          ctx,
          event,
          parse(processorCustomerSchema, object, event),
          attached,
        );
      case 'charge.succeeded':
        return this.onCharge(ctx, event, parse(processorChargeSchema, object, event), attached);
      case 'charge.refunded':
        return this.onRefund(ctx, event, parse(processorChargeSchema, object, event), attached);
      default:
        return; // other processor events are accepted and ignored
    }
  }
  private async onCharge(
    ctx: CallContext,
    event: ProcessorEvent,
    charge: ProcessorCharge,
    customersReferral: Promise<ReferralRecord | null>,
  ): Promise<void | 'recorded'> {
    if (!charge.customer) return;
    const now = this.now();
    let referral = await customersReferral;
    if (referral?.applied_events?.includes(event.id)) return 'recorded';
    const coupon = metadataString(charge.metadata, 'coupon');
    if (!referral && coupon) {
      const customer = {
        platform: this.platformName,
        id: charge.customer,
        name: null,
        email: null,
      };
      referral = await this.customers.referralFromCoupon(
        ctx,
        event,
        coupon,
        customer,
        event.account ?? null,
        now,
      );
    }
    if (!referral || !isLive(referral, now)) return;
    const attribution = await this.catalog.byAffiliate(ctx.merchantId, referral.affiliate_id);
    // The referral's affiliate exists (affiliates are never deleted), so this replica's catalog
    // is behind its events: retry rather than drop the charge.
    if (!attribution)
      throw new AppError(
        'unavailable',
        `Affiliate ${referral.affiliate_id} not in the catalog yet`,
      );
    if (!affiliateCanEarn(attribution.affiliate.state)) return;
    const converts = referral.conversion_state !== 'conversion';
    const written = await this.writer.change(
      ctx,
      referral,
      {
        conversion_state: 'conversion',
        became_lead_at: referral.became_lead_at ?? now,
        became_conversion_at: referral.became_conversion_at ?? now,
        updated_at: now,
      },
      converts ? ['referral.converted'] : [],
      {
        idSeed: seed(ctx, event),
        condition: converts ? { became_conversion_at: null } : {},
        applies: event.id,
        extra: (view) => [
          withId(
            buildEvent('charge.attributed', ctx.merchantId, {
              processor_event_id: event.id,
              processor_account_id: event.account ?? null,
              charge,
              referral: view,
              affiliate: attribution.affiliate,
              campaign: attribution.campaign,
            }),
            seed(ctx, event),
          ),
        ],
      },
    );
    // Only a racing write of the same referral fails the condition: retry, re-reading it (a
    // racing copy of this very event is then found applied).
    if (!written) throw new AppError('unavailable', 'Referral changed meanwhile; retrying');
    return 'recorded';
  }

  private async onRefund(
    ctx: CallContext,
    event: ProcessorEvent,
    charge: ProcessorCharge,
    customersReferral: Promise<ReferralRecord | null>,
  ): Promise<void | 'recorded'> {
    if (!charge.customer) return;
    const referral = await customersReferral;
    if (!referral) return;
    if (referral.applied_events?.includes(event.id)) return 'recorded';
    const written = await this.writer.change(ctx, referral, { updated_at: this.now() }, [], {
      applies: event.id,
      extra: () => [
        withId(
          buildEvent('charge.refund_attributed', ctx.merchantId, {
            processor_event_id: event.id,
            charge,
            referral_id: referral._id,
          }),
          seed(ctx, event),
        ),
      ],
    });
    // A racing write of the referral: retry, re-reading it.
    if (!written) throw new AppError('unavailable', 'Referral changed meanwhile; retrying');
    return 'recorded';
  }
}
