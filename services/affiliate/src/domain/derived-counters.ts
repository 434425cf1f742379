/**
 * Counters and statistics that follow from other services' events: visitors/leads/conversions
 * of links and affiliates (from referral events) and commission_stats (from commission and sale
 * events). Each event first updates a fact keyed by the other service's record id, atomically
 * returning the fact as it was: the difference is what the event changes, so the counters move
 * by `$inc` exactly once per change, whatever the order or number of deliveries. The fact is
 * marked `pending_since` in that same write and unmarked once the increment is applied; after a
 * crash in between, the repair sweep recounts the affected totals from the facts. A later event
 * of the same fact never replaces an earlier mark (the earlier writer may be the one that died),
 * so a redelivery after a crash cannot hide the missed increment from the sweep.
 */
import type { CommissionView, CouponReferral, ReferralView, SaleView } from '@aff/contracts';
import type { Model } from 'mongoose';
import { BulkUpdates, isDuplicateKeyError } from '@aff/mongo';
import type { AffiliateRecord } from '../data/affiliate.schema';
import type { FactModels, ReferralFact } from '../data/facts.schema';
import type { LinkRecord } from '../data/link.schema';
import type { CouponRecord } from '../data/coupon.schema';
import { commissionStats } from './commission-stats';
import { commissionDelta, saleDelta, statsUpdate, type StatDelta } from './stat-deltas';

/** How long a fact may stay marked before the repair sweep recounts what it touches. */
export const REPAIR_AFTER_MS = 120_000;

export class DerivedCounters {
  /** Increments and unmarks of concurrent events share bulk writes. */
  private readonly bulk = new BulkUpdates();

  constructor(
    private readonly facts: FactModels,
    private readonly affiliates: Model<AffiliateRecord>,
    private readonly links: Model<LinkRecord>,
    private readonly coupons: Model<CouponRecord>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async onCouponReferral(merchantId: string, fact: CouponReferral): Promise<void> {
    await this.facts.couponReferrals.updateOne(
      { _id: fact.referral_id, merchant_id: merchantId },
      {
        $setOnInsert: { coupon_id: fact.coupon_id },
        $max: { lead: fact.lead ? 1 : 0, conversion: fact.conversion ? 1 : 0 },
      },
      { upsert: true },
    );
    await this.recountCoupon(merchantId, fact.coupon_id);
  }

  async onReferral(merchantId: string, referral: ReferralView): Promise<void> {
    const affiliateId =
      referral.affiliate?.id ?? (await this.affiliateOfLink(merchantId, referral.link?.id));
    if (!affiliateId) return;
    const marker = this.now();
    const after = {
      lead: referral.became_lead_at ? 1 : 0,
      conversion: referral.became_conversion_at ? 1 : 0,
    };
    const before = await retryOnDuplicate(() =>
      this.facts.referrals
        .findOneAndUpdate(
          { _id: referral.id, merchant_id: merchantId },
          {
            $setOnInsert: { affiliate_id: affiliateId, link_id: referral.link?.id ?? null },
            $max: after,
            // The oldest mark stays: if a writer before us died between its fact and its
            // increment, its mark must outlive our unmark so the repair sweep recounts.
            $min: { pending_since: marker },
          },
          { upsert: true, new: false },
        )
        .lean<ReferralFact>()
        .exec(),
    );
    const delta = {
      visitors: before ? 0 : 1,
      leads: after.lead && !before?.lead ? 1 : 0,
      conversions: after.conversion && !before?.conversion ? 1 : 0,
    };
    if (delta.visitors || delta.leads || delta.conversions) {
      const linkId = before?.link_id ?? referral.link?.id ?? null;
      await Promise.all([
        linkId
          ? this.bulk.updateOne(
              this.links,
              { _id: linkId, merchant_id: merchantId },
              { $inc: delta },
            )
          : undefined,
        this.bulk.updateOne(
          this.affiliates,
          { _id: affiliateId, merchant_id: merchantId },
          { $inc: delta },
        ),
      ]);
    }
    await this.unmark(this.facts.referrals, referral.id, marker);
  }

  async onCommission(merchantId: string, commission: CommissionView): Promise<void> {
    const affiliateId = commission.sale?.affiliate.id;
    if (!affiliateId) return;
    const after = {
      currency: commission.currency,
      amount: commission.amount,
      state: commission.state,
    };
    await this.applyNewest(
      this.facts.commissions,
      merchantId,
      affiliateId,
      commission.id,
      commission.updated_at,
      after,
      (before) => commissionDelta(before, after),
    );
  }

  async onSale(merchantId: string, sale: SaleView): Promise<void> {
    const after = {
      currency: sale.currency,
      gross_cents: sale.charge_amount_cents,
      net_cents: sale.sale_amount_cents,
    };
    await this.applyNewest(
      this.facts.sales,
      merchantId,
      sale.affiliate.id,
      sale.id,
      sale.updated_at,
      after,
      (before) => saleDelta(before, after),
    );
  }

  /**
   * Recounts, from the facts, every total a fact marked longer than `REPAIR_AFTER_MS` ago may
   * have missed (its process died between the fact and the increment), then unmarks it.
   */
  async repair(): Promise<number> {
    const olderThan = new Date(this.now().getTime() - REPAIR_AFTER_MS);
    const stale = { pending_since: { $lt: olderThan } };
    const [referrals, commissions, sales] = await Promise.all([
      this.facts.referrals.find(stale).limit(500).lean().exec(),
      this.facts.commissions.find(stale).limit(500).lean().exec(),
      this.facts.sales.find(stale).limit(500).lean().exec(),
    ]);
    const counted = new Set<string>();
    for (const fact of referrals) {
      const scopes: Record<string, string>[] = [{ affiliate_id: fact.affiliate_id }];
      if (fact.link_id) scopes.push({ link_id: fact.link_id });
      for (const scope of scopes) {
        const key = `${fact.merchant_id}:${JSON.stringify(scope)}`;
        if (counted.has(key)) continue;
        counted.add(key);
        const counts = await this.count(fact.merchant_id, scope);
        const target = { merchant_id: fact.merchant_id };
        if (scope.link_id)
          await this.links.updateOne({ ...target, _id: scope.link_id }, { $set: counts });
        else
          await this.affiliates.updateOne({ ...target, _id: scope.affiliate_id }, { $set: counts });
      }
      await this.unmark(this.facts.referrals, fact._id, fact.pending_since as Date);
    }
    for (const fact of [...commissions, ...sales]) {
      const key = `${fact.merchant_id}:stats:${fact.affiliate_id}`;
      if (!counted.has(key)) {
        counted.add(key);
        await this.recountStats(fact.merchant_id, fact.affiliate_id);
      }
      const model = (commissions.includes(fact as never)
        ? this.facts.commissions
        : this.facts.sales) as unknown as Model<{ _id: string }>;
      await this.unmark(model, fact._id, fact.pending_since as Date);
    }
    return referrals.length + commissions.length + sales.length;
  }

  /**
   * Stores a newer version of a commission or sale fact and adds the difference to the
   * affiliate's statistics. An older or repeated version changes nothing. The write is an
   * insert (a new fact) or an update conditional on the version read, retried when another
   * writer got in between, so the difference is always taken against what was replaced.
   */
  private async applyNewest<T extends { updated_at?: string; pending_since?: Date | null }>(
    model: Model<T>,
    merchantId: string,
    affiliateId: string,
    id: string,
    updatedAt: string,
    fields: Record<string, unknown>,
    deltaFrom: (before: T | null) => StatDelta,
  ): Promise<void> {
    const marker = this.now();
    for (let attempt = 0; ; attempt++) {
      const before = await model
        .findOne({ _id: id, merchant_id: merchantId } as never)
        .lean<T>()
        .exec();
      // Strictly older only: an equal version is a repeat (its difference is zero) or a
      // same-millisecond change, which arrival order decides.
      if (before?.updated_at && before.updated_at > updatedAt) return;
      // A fact still marked by an earlier writer keeps that mark: the writer may have died
      // before its increment, and only the repair sweep can tell; our unmark leaves it alone.
      const inheritedMark = before?.pending_since ?? null;
      const next = {
        ...fields,
        affiliate_id: affiliateId,
        updated_at: updatedAt,
        pending_since: inheritedMark ?? marker,
      };
      const written = before
        ? (
            await model.updateOne(
              { _id: id, merchant_id: merchantId, updated_at: before.updated_at } as never,
              { $set: next } as never,
            )
          ).matchedCount === 1
        : await model.collection
            .insertOne({ _id: id, merchant_id: merchantId, ...next } as never)
            .then(
              () => true,
              (error: unknown) => {
                if (isDuplicateKeyError(error)) return false;
                throw error;
              },
            );
      if (written) {
        const delta = deltaFrom(before);
        if (delta.size > 0) {
          await this.bulk.updateOne(
            this.affiliates,
            { _id: affiliateId, merchant_id: merchantId },
            statsUpdate(delta),
          );
        }
        if (!inheritedMark)
          await this.unmark(model as unknown as Model<{ _id: string }>, id, marker);
        return;
      }
      if (attempt >= 5) throw new Error(`fact ${id} kept changing; will retry`);
    }
  }

  private async unmark(
    model: Model<{ _id: string }> | Model<ReferralFact>,
    id: string,
    marker: Date,
  ): Promise<void> {
    await this.bulk.updateOne(
      model as Model<{ _id: string }>,
      { _id: id, pending_since: marker },
      { $unset: { pending_since: 1 } },
    );
  }

  private async recountStats(merchantId: string, affiliateId: string): Promise<void> {
    const scope = { merchant_id: merchantId, affiliate_id: affiliateId };
    const [commissions, sales] = await Promise.all([
      this.facts.commissions.find(scope).lean().exec(),
      this.facts.sales.find(scope).lean().exec(),
    ]);
    await this.affiliates.updateOne(
      { _id: affiliateId, merchant_id: merchantId },
      { $set: { commission_stats: commissionStats(commissions, sales) } },
    );
  }

  private async recountCoupon(merchantId: string, couponId: string): Promise<void> {
    const base = { merchant_id: merchantId, coupon_id: couponId };
    const [leads, conversions] = await Promise.all([
      this.facts.couponReferrals.countDocuments({ ...base, lead: 1 }).exec(),
      this.facts.couponReferrals.countDocuments({ ...base, conversion: 1 }).exec(),
    ]);
    await this.coupons.updateOne(
      { _id: couponId, merchant_id: merchantId },
      { $set: { leads, conversions } },
    );
  }

  private async count(merchantId: string, scope: Record<string, string>) {
    const base = { merchant_id: merchantId, ...scope };
    const [visitors, leads, conversions] = await Promise.all([
      this.facts.referrals.countDocuments(base).exec(),
      this.facts.referrals.countDocuments({ ...base, lead: 1 }).exec(),
      this.facts.referrals.countDocuments({ ...base, conversion: 1 }).exec(),
    ]);
    return { visitors, leads, conversions };
  }

  private async affiliateOfLink(
    merchantId: string,
    linkId: string | undefined,
  ): Promise<string | null> {
    if (!linkId) return null;
    const link = await this.links.findOne({ _id: linkId, merchant_id: merchantId }).lean().exec();
    return link?.affiliate_id ?? null;
  }
}

/** Two first events of one fact upserting at once: the loser's retry finds the winner's fact. */
async function retryOnDuplicate<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    return write();
  }
}
