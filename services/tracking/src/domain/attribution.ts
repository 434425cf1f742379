/**
 * Verified payment-processor events: customers become leads of the referral (or coupon) that
 * brought them, charges of attributed customers convert the referral and go on to the
 * commission service, refunds follow them there. Each processor event takes effect once.
 */
import {
  buildEvent,
  deterministicId,
  processorChargeSchema,
  processorCustomerSchema,
} from '@aff/contracts';
import type {
  EventEnvelope,
  ProcessorCharge,
  ProcessorCustomer,
  ProcessorEvent,
  ReferralCustomer,
} from '@aff/contracts';
import { AppError } from '@aff/api';
import type { Catalog } from './catalog';
import { newReferral } from './new-referral';
import type { FraudCheck } from './fraud-check';
import { affiliateCanEarn, isLive, stateAfterLead } from './referral-rules';
import type { ReferralWriter } from './referral-writer';
import { DuplicateError, type AppliedEvents, type CallContext, type ReferralStore } from './ports';
import { customerKey, type ReferralRecord } from './records';

const CONSUMER = 'tracking-processor';

export class AttributionUseCases {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly catalog: Catalog,
    private readonly writer: ReferralWriter,
    private readonly processed: AppliedEvents,
    private readonly platformName: string,
    private readonly fraud: FraudCheck,
    private readonly now: () => Date = () => new Date(),
  ) {}

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

  private async apply(
    ctx: CallContext,
    event: ProcessorEvent,
    attached: Promise<ReferralRecord | null>,
  ): Promise<void> {
    const object = event.data.object;
    switch (event.type) {
      case 'customer.created':
      case 'customer.updated':
        return this.onCustomer(ctx, event, parse(processorCustomerSchema, object, event), attached);
      case 'charge.succeeded':
        return this.onCharge(ctx, event, parse(processorChargeSchema, object, event), attached);
      case 'charge.refunded':
        return this.onRefund(ctx, event, parse(processorChargeSchema, object, event), attached);
      default:
        return; // other processor events are accepted and ignored
    }
  }

  private async onCustomer(
    ctx: CallContext,
    event: ProcessorEvent,
    customer: ProcessorCustomer,
    customersReferral: Promise<ReferralRecord | null>,
  ): Promise<void> {
    const now = this.now();
    const referralId = metadataString(customer.metadata, 'referral');
    const attached = await customersReferral;
    if (attached) {
      await this.writer.change(
        ctx,
        attached,
        { customer: this.customerOf(customer), email: lower(customer.email), updated_at: now },
        ['referral.updated'],
        {
          idSeed: seed(ctx, event),
        },
      );
      return;
    }
    const referral = referralId ? await this.referrals.findById(ctx.merchantId, referralId) : null;
    if (referral && !referral.processor_customer_id && isLive(referral, now)) {
      await this.attachCustomer(ctx, event, referral, customer, now);
      return;
    }
    const coupon = metadataString(customer.metadata, 'coupon');
    if (coupon)
      await this.referralFromCoupon(
        ctx,
        event,
        coupon,
        this.customerOf(customer),
        event.account ?? null,
        now,
      );
  }

  private async attachCustomer(
    ctx: CallContext,
    event: ProcessorEvent,
    referral: ReferralRecord,
    customer: ProcessorCustomer,
    now: Date,
  ): Promise<void> {
    const attribution = await this.catalog.byAffiliate(ctx.merchantId, referral.affiliate_id);
    const becomesLead = referral.conversion_state === 'visitor';
    const fraud = await this.fraud.evaluate(
      referral,
      attribution,
      {
        email: { value: customer.email, source: 'customer' },
        address: { hash: referral.address_hash, source: 'customer', counts: true },
      },
      now,
    );
    try {
      const written = await this.writer.change(
        ctx,
        referral,
        {
          customer: this.customerOf(customer),
          processor_customer_id: customer.id,
          customer_key: customerKey(customer.id),
          processor_account_id: event.account ?? null,
          email: lower(customer.email) ?? referral.email,
          conversion_state: stateAfterLead(referral.conversion_state),
          became_lead_at: referral.became_lead_at ?? now,
          updated_at: now,
          ...fraud.set,
        },
        [
          becomesLead ? 'referral.lead' : 'referral.updated',
          ...(fraud.flagged ? (['referral.flagged'] as const) : []),
        ],
        {
          idSeed: seed(ctx, event),
          // A lead recorded by the page meanwhile makes this a plain update; retry as one.
          condition: { processor_customer_id: null, conversion_state: referral.conversion_state },
        },
      );
      if (!written) throw new AppError('unavailable', 'Referral changed meanwhile; retrying');
    } catch (error) {
      // The customer was attributed to another referral meanwhile: the first attribution wins.
      if (!(error instanceof DuplicateError)) throw error;
    }
  }

  private async referralFromCoupon(
    ctx: CallContext,
    event: ProcessorEvent,
    code: string,
    customer: ReferralCustomer,
    accountId: string | null,
    now: Date,
  ): Promise<ReferralRecord | null> {
    const attribution = await this.catalog.byCouponCode(ctx.merchantId, code);
    if (!attribution || !affiliateCanEarn(attribution.affiliate.state)) return null;
    const fresh = newReferral(ctx.merchantId, attribution, now, {
      coupon_id: attribution.couponId ?? null,
      customer,
      processor_customer_id: customer.id,
      processor_account_id: accountId,
      email: lower(customer.email),
      conversion_state: 'lead',
      became_lead_at: now,
    });
    // A coupon referral has no visit, so no address: only the e-mail rules apply.
    const fraud = await this.fraud.evaluate(
      fresh,
      attribution,
      { email: { value: customer.email, source: 'customer' } },
      now,
    );
    const record: ReferralRecord = { ...fresh, ...fraud.set };
    const types = ['referral.created', 'referral.lead'] as const;
    try {
      await this.writer.create(
        ctx,
        record,
        fraud.flagged ? [...types, 'referral.flagged'] : [...types],
        {
          idSeed: seed(ctx, event),
        },
      );
    } catch (error) {
      if (!(error instanceof DuplicateError)) throw error;
    }
    return this.referrals.findByCustomer(ctx.merchantId, customer.id);
  }

  private async onCharge(
    ctx: CallContext,
    event: ProcessorEvent,
    charge: ProcessorCharge,
    customersReferral: Promise<ReferralRecord | null>,
  ): Promise<void> {
    if (!charge.customer) return;
    const now = this.now();
    let referral = await customersReferral;
    const coupon = metadataString(charge.metadata, 'coupon');
    if (!referral && coupon) {
      const customer = {
        platform: this.platformName,
        id: charge.customer,
        name: null,
        email: null,
      };
      referral = await this.referralFromCoupon(
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
    // Only a racing conversion of the same referral fails the condition: retry, re-reading it.
    if (!written) throw new AppError('unavailable', 'Referral changed meanwhile; retrying');
  }

  private async onRefund(
    ctx: CallContext,
    event: ProcessorEvent,
    charge: ProcessorCharge,
    customersReferral: Promise<ReferralRecord | null>,
  ): Promise<void> {
    if (!charge.customer) return;
    const referral = await customersReferral;
    if (!referral) return;
    await this.writer.change(ctx, referral, { updated_at: this.now() }, [], {
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
  }

  private customerOf(customer: ProcessorCustomer): ReferralCustomer {
    return {
      platform: this.platformName,
      id: customer.id,
      name: customer.name ?? null,
      email: customer.email ?? null,
    };
  }
}

function parse<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  event: ProcessorEvent,
): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    // Retrying cannot fix a malformed object: terminate instead of looping.
    throw new AppError(
      'unprocessable',
      `Malformed ${event.type} object in processor event ${event.id}`,
    );
  }
  return result.data;
}

/** The processor customer an event is about, read before the object is validated. */
function customerIdOf(event: ProcessorEvent): string | undefined {
  const object = event.data.object as { id?: unknown; customer?: unknown };
  const id = event.type.startsWith('customer.') ? object.id : object.customer;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

function metadataString(
  metadata: Record<string, unknown> | null | undefined,
  key: string,
): string | undefined {
  const value = metadata?.[key];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function lower(email: string | null | undefined): string | null {
  return email ? email.trim().toLowerCase() : null;
}

function seed(ctx: CallContext, event: ProcessorEvent): string {
  return `${ctx.merchantId}:${event.id}`;
}

function withId<T extends EventEnvelope>(event: T, idSeed: string): T {
  return { ...event, id: deterministicId(`${idSeed}:${event.type}`) };
}
