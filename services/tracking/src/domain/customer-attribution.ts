/**
 * Processor customers: a customer becomes the lead of the referral (or the coupon) that brought
 * it; a coupon customer with no referral gets one.
 */
import type { ProcessorCustomer, ProcessorEvent, ReferralCustomer } from '@aff/contracts';
import { AppError } from '@aff/api';
import type { Catalog } from './catalog';
import { newReferral } from './new-referral';
import type { FraudCheck } from './fraud-check';
import { lower, metadataString, seed } from './processor-event-fields';
import { affiliateCanEarn, isLive, stateAfterLead } from './referral-rules';
import type { ReferralWriter } from './referral-writer';
import { DuplicateError, type CallContext, type ReferralStore } from './ports';
import { customerKey, type ReferralRecord } from './records';

export class CustomerAttribution {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly catalog: Catalog,
    private readonly writer: ReferralWriter,
    private readonly platformName: string,
    private readonly fraud: FraudCheck,
    private readonly now: () => Date,
  ) {}

  async onCustomer(
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

  async referralFromCoupon(
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
  private customerOf(customer: ProcessorCustomer): ReferralCustomer {
    return {
      platform: this.platformName,
      id: customer.id,
      name: customer.name ?? null,
      email: customer.email ?? null,
    };
  }
}
