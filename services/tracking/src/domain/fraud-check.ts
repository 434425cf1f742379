/**
 * Runs the fraud rules (fraud-rules.ts) at the three moments DESIGN.md names: a referral is
 * created by a visit, becomes a lead, gets a customer. It gathers what the rules need (the
 * campaign's policy, the affiliate's addresses, the address facts) and answers the referral
 * fields to write with the step, and whether a `referral.flagged` goes with them.
 */
import type { Attribution } from './catalog';
import {
  decide,
  disposableEmail,
  fraudChanges,
  ipVelocity,
  paidAds,
  selfReferralEmail,
  selfReferralIp,
  type AddressSource,
  type EmailSource,
  type FraudChanges,
} from './fraud-rules';
import type { ReferralRecord } from './records';

/** What tracking knows about client addresses (as the gateway's keyed hashes). */
export interface AddressFacts {
  /** The affiliate's latest portal sign-in from this address, if any is kept. */
  lastSignIn(merchantId: string, affiliateId: string, addressHash: string): Promise<Date | null>;
  /**
   * Counts the referral as a lead or customer of the affiliate from the address (once per
   * referral) and answers its place among those of the last 24 hours (1 = the first).
   */
  countHit(
    merchantId: string,
    affiliateId: string,
    addressHash: string,
    referralId: string,
    now: Date,
  ): Promise<number>;
}

export interface FraudInputs {
  email?: { value: string | null | undefined; source: EmailSource };
  /** The visit's landing url (a new referral from a visit). */
  landingUrl?: string | null;
  /** The address the step came from; `counts`: a lead or customer for the velocity count. */
  address?: { hash: string | null | undefined; source: AddressSource; counts: boolean };
}

export interface FraudOutcome {
  set: FraudChanges;
  /** True when this step recorded a new signal (a `referral.flagged` is due). */
  flagged: boolean;
}

export class FraudCheck {
  constructor(private readonly addresses: AddressFacts | null = null) {}

  async evaluate(
    record: ReferralRecord,
    attribution: Attribution | null,
    inputs: FraudInputs,
    now: Date,
  ): Promise<FraudOutcome> {
    const found = [
      inputs.landingUrl !== undefined ? paidAds(inputs.landingUrl, now) : null,
      ...(inputs.email ? this.emailSignals(inputs.email, attribution, now) : []),
      ...(await this.addressSignals(record, attribution, inputs.address, now)),
    ];
    const decision = decide(
      record.fraud_signals ?? [],
      found,
      attribution?.campaign.fraud_policy,
      attribution?.affiliate.fraud_exempt ?? false,
    );
    const set = fraudChanges(record, decision, now);
    return { set, flagged: decision.added.length > 0 };
  }

  private emailSignals(
    email: NonNullable<FraudInputs['email']>,
    attribution: Attribution | null,
    now: Date,
  ) {
    return [
      attribution ? selfReferralEmail(email.value, attribution.affiliate, email.source, now) : null,
      disposableEmail(email.value, email.source, now),
    ];
  }

  private async addressSignals(
    record: ReferralRecord,
    attribution: Attribution | null,
    address: FraudInputs['address'],
    now: Date,
  ) {
    const hash = address?.hash;
    if (!this.addresses || !address || !hash) return [];
    const { merchant_id: merchantId, affiliate_id: affiliateId } = record;
    const [signedInAt, number] = await Promise.all([
      this.addresses.lastSignIn(merchantId, affiliateId, hash),
      address.counts
        ? this.addresses.countHit(merchantId, affiliateId, hash, record._id, now)
        : Promise.resolve(0),
    ]);
    return [
      selfReferralIp(signedInAt, address.source, now),
      ipVelocity(number, attribution?.campaign.ip_velocity_limit, address.source, now),
    ];
  }
}
