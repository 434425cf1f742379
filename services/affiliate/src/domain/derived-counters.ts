/**
 * Counters and statistics that follow from other services' events: visitors/leads/conversions
 * of links and affiliates (from referral events) and commission_stats (from commission and sale
 * events). Facts are upserted idempotently, then the totals are recounted from them, so a
 * replayed or reordered event cannot skew a number.
 */
import type { CommissionView, CouponReferral, ReferralView, SaleView } from '@aff/contracts';
import type { Model } from 'mongoose';
import type { AffiliateRecord } from '../data/affiliate.schema';
import type { FactModels } from '../data/facts.schema';
import type { LinkRecord } from '../data/link.schema';
import type { CouponRecord } from '../data/coupon.schema';
import { commissionStats } from './commission-stats';

export class DerivedCounters {
  constructor(
    private readonly facts: FactModels,
    private readonly affiliates: Model<AffiliateRecord>,
    private readonly links: Model<LinkRecord>,
    private readonly coupons: Model<CouponRecord>,
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
    const base = { merchant_id: merchantId, coupon_id: fact.coupon_id };
    const [leads, conversions] = await Promise.all([
      this.facts.couponReferrals.countDocuments({ ...base, lead: 1 }).exec(),
      this.facts.couponReferrals.countDocuments({ ...base, conversion: 1 }).exec(),
    ]);
    await this.coupons.updateOne(
      { _id: fact.coupon_id, merchant_id: merchantId },
      { $set: { leads, conversions } },
    );
  }

  async onReferral(merchantId: string, referral: ReferralView): Promise<void> {
    const affiliateId =
      referral.affiliate?.id ?? (await this.affiliateOfLink(merchantId, referral.link?.id));
    if (!affiliateId) return;
    await this.facts.referrals.updateOne(
      { _id: referral.id, merchant_id: merchantId },
      {
        $setOnInsert: { affiliate_id: affiliateId, link_id: referral.link?.id ?? null },
        $max: {
          lead: referral.became_lead_at ? 1 : 0,
          conversion: referral.became_conversion_at ? 1 : 0,
        },
      },
      { upsert: true },
    );
    if (referral.link) {
      const counts = await this.count(merchantId, { link_id: referral.link.id });
      await this.links.updateOne(
        { _id: referral.link.id, merchant_id: merchantId },
        { $set: counts },
      );
    }
    const totals = await this.count(merchantId, { affiliate_id: affiliateId });
    await this.affiliates.updateOne(
      { _id: affiliateId, merchant_id: merchantId },
      { $set: totals },
    );
  }

  async onCommission(merchantId: string, commission: CommissionView): Promise<void> {
    const affiliateId = commission.sale?.affiliate.id;
    if (!affiliateId) return;
    await this.saveNewest(
      this.facts.commissions,
      merchantId,
      commission.id,
      commission.updated_at,
      {
        affiliate_id: affiliateId,
        currency: commission.currency,
        amount: commission.amount,
        state: commission.state,
      },
    );
    await this.refreshStats(merchantId, affiliateId);
  }

  async onSale(merchantId: string, sale: SaleView): Promise<void> {
    await this.saveNewest(this.facts.sales, merchantId, sale.id, sale.updated_at, {
      affiliate_id: sale.affiliate.id,
      currency: sale.currency,
      gross_cents: sale.charge_amount_cents,
      net_cents: sale.sale_amount_cents,
    });
    await this.refreshStats(merchantId, sale.affiliate.id);
  }

  private async refreshStats(merchantId: string, affiliateId: string): Promise<void> {
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

  /** Keeps the newest version of a fact; an older event arriving late changes nothing. */
  private async saveNewest(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    model: Model<any>,
    merchantId: string,
    id: string,
    updatedAt: string,
    fields: Record<string, unknown>,
  ): Promise<void> {
    const current = (await model.findOne({ _id: id, merchant_id: merchantId }).lean().exec()) as {
      updated_at: string;
    } | null;
    if (current && current.updated_at > updatedAt) return;
    await model.updateOne(
      { _id: id, merchant_id: merchantId },
      { $set: { ...fields, updated_at: updatedAt } },
      { upsert: true },
    );
  }
}
