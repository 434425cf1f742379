/** Public intake: a visit through an affiliate link, and a visitor who becomes a lead. */
import type { LeadAnswer, LeadBody, ReferralView, VisitAnswer, VisitBody } from '@aff/contracts';
import { AppError, errors } from '@aff/api';
import type { Catalog } from './catalog';
import { newReferral } from './new-referral';
import type { FraudCheck } from './fraud-check';
import { affiliateCanEarn, isLive, stateAfterLead } from './referral-rules';
import type { ReferralWriter } from './referral-writer';
import type { CallContext, ReferralStore, VisitQueue } from './ports';
import type { ReferralRecord } from './records';

export class VisitUseCases {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly catalog: Catalog,
    private readonly writer: ReferralWriter,
    private readonly queue: VisitQueue,
    private readonly fraud: FraudCheck,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** `input`: the request body, checked against the contract map's schema. */
  /** `addressHash`: the client address as the gateway's keyed hash, when it sent one. */
  async recordVisit(
    ctx: CallContext,
    input: VisitBody,
    addressHash: string | null = null,
  ): Promise<VisitAnswer> {
    const { token, url, referrer, referral: referralId } = input;
    const attribution = await this.catalog.byToken(ctx.merchantId, token);
    if (!attribution) throw new AppError('not_found', `Link not found: ${token}`);
    const affiliate = {
      id: attribution.affiliate.id,
      first_name: attribution.affiliate.first_name,
    };
    // Disabled and suspicious affiliates earn nothing new, so their visits make no referral.
    if (!affiliateCanEarn(attribution.affiliate.state)) return { referral: null, affiliate };

    const now = this.now();
    if (referralId) {
      const existing = await this.referrals.findById(ctx.merchantId, referralId);
      if (existing && existing.link_id === attribution.link?._id && isLive(existing, now)) {
        await this.writer.change(ctx, existing, { updated_at: now }, ['referral.updated'], {
          inc: { visits: 1 },
        });
        // (Unconditional: referrals are never deleted, so this always applies.)
        return {
          referral: { id: existing._id, expires_at: new Date(existing.expires_at).toISOString() },
          affiliate,
        };
      }
    }
    const fresh = newReferral(ctx.merchantId, attribution, now, {
      landing_url: url ?? null,
      referrer: referrer ?? null,
      address_hash: addressHash,
    });
    // Checked before it is queued, so the intake writes the referral with what was found.
    const fraud = await this.fraud.evaluate(
      fresh,
      attribution,
      {
        landingUrl: url ?? null,
        // A visit is checked against the affiliate's sign-ins; only leads and customers count
        // towards `ip_velocity`.
        address: { hash: addressHash, source: 'visit', counts: false },
      },
      now,
    );
    const record: ReferralRecord = { ...fresh, ...fraud.set };
    // Durable-first: answered once the visit is queued; the intake consumer writes the referral
    // (in batches) and publishes its `referral.created`. Readers of a referral still queued
    // write it themselves (ReferralsWithIntake).
    await this.queue.submit(record, ctx.events);
    return { referral: { id: record._id, expires_at: record.expires_at.toISOString() }, affiliate };
  }

  /**
   * Idempotent: a referral that already is a lead (or converted) stays as it is. The step to
   * lead is conditional, so a lead racing the processor's customer event is counted once.
   * Answered like a visit: anyone with the public key and a referral id calls this, so the
   * answer carries nothing of the affiliate but its id and first name (DESIGN.md section 3).
   */
  async recordLead(
    ctx: CallContext,
    input: LeadBody,
    addressHash: string | null = null,
  ): Promise<LeadAnswer> {
    const { referral: referralId, email } = input;
    for (;;) {
      const current = await this.referrals.findById(ctx.merchantId, referralId);
      if (!current) throw errors.notFound('Referral', referralId);
      const view = await this.leadStep(ctx, current, email, addressHash);
      if (view) return this.publicAnswer(ctx, current, view);
    }
  }

  private async publicAnswer(
    ctx: CallContext,
    record: ReferralRecord,
    view: ReferralView,
  ): Promise<LeadAnswer> {
    const firstName =
      view.affiliate?.first_name ??
      (await this.catalog.byAffiliate(ctx.merchantId, record.affiliate_id))?.affiliate.first_name ??
      '';
    return {
      referral: { id: view.id, expires_at: view.expires_at },
      affiliate: { id: record.affiliate_id, first_name: firstName },
    };
  }

  /** Null when another writer made the step first; the caller reads again. */
  private async leadStep(
    ctx: CallContext,
    current: ReferralRecord,
    email: string,
    addressHash: string | null,
  ): Promise<ReferralView | null> {
    const now = this.now();
    if (current.conversion_state !== 'visitor' || !isLive(current, now)) {
      return this.writer.change(
        ctx,
        current,
        { email: current.email ?? email, updated_at: now },
        [],
      );
    }
    const attribution = await this.catalog.byAffiliate(ctx.merchantId, current.affiliate_id);
    const fraud = await this.fraud.evaluate(
      current,
      attribution,
      {
        email: { value: email, source: 'lead' },
        // The lead's own address; a lead reported without one counts from the visit's.
        address: { hash: addressHash ?? current.address_hash, source: 'lead', counts: true },
      },
      now,
    );
    return this.writer.change(
      ctx,
      current,
      {
        email,
        conversion_state: stateAfterLead(current.conversion_state),
        became_lead_at: now,
        updated_at: now,
        ...fraud.set,
      },
      fraud.flagged ? ['referral.lead', 'referral.flagged'] : ['referral.lead'],
      { condition: { conversion_state: 'visitor', became_lead_at: null } },
    );
  }
}
