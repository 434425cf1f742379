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
import { commissionStats } from './commission-stats';
import type { CounterStore, VersionedFact, VersionedFactKind } from './ports';
import { commissionDelta, saleDelta, type StatDelta } from './stat-deltas';

/** How long a fact may stay marked before the repair sweep recounts what it touches. */
export const REPAIR_AFTER_MS = 120_000;

export class DerivedCounters {
  constructor(
    private readonly store: CounterStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async onCouponReferral(merchantId: string, fact: CouponReferral): Promise<void> {
    await this.store.recordCouponReferral(merchantId, fact.referral_id, fact.coupon_id, {
      lead: fact.lead ? 1 : 0,
      conversion: fact.conversion ? 1 : 0,
    });
    const counts = await this.store.countCouponReferrals(merchantId, fact.coupon_id);
    await this.store.setCouponCounts(merchantId, fact.coupon_id, counts);
  }

  /**
   * `first`: the referral's created event. Its fact is inserted without reading (batched with
   * others arriving together): an insert that succeeds proves nothing was counted before, and a
   * duplicate key (a redelivery, or a later event of the referral that overtook it) sends it
   * down the atomic read-and-raise path. That path is one `findOneAndUpdate` per event, which
   * was the largest share of the database's work per visit.
   */
  async onReferral(merchantId: string, referral: ReferralView, first = false): Promise<void> {
    const affiliateId =
      referral.affiliate?.id ?? (await this.affiliateOfLink(merchantId, referral.link?.id));
    if (!affiliateId) return;
    const marker = this.now();
    const after = {
      lead: referral.became_lead_at ? 1 : 0,
      conversion: referral.became_conversion_at ? 1 : 0,
    };
    const target = { affiliateId, linkId: referral.link?.id ?? null };
    const inserted =
      first &&
      (await this.store.insertReferralFact(merchantId, referral.id, target, after, marker));
    const before = inserted
      ? null
      : await this.store.markReferral(merchantId, referral.id, target, after, marker);
    const delta = {
      visitors: before ? 0 : 1,
      leads: after.lead && !before?.lead ? 1 : 0,
      conversions: after.conversion && !before?.conversion ? 1 : 0,
    };
    if (delta.visitors || delta.leads || delta.conversions) {
      const linkId = before?.link_id ?? referral.link?.id ?? null;
      await this.store.incrementCounters(merchantId, { affiliateId, linkId }, delta);
    }
    await this.store.unmark('referrals', referral.id, marker);
  }

  /** `first`: the record's created event, whose fact most likely does not exist yet. */
  async onCommission(merchantId: string, commission: CommissionView, first = false): Promise<void> {
    const affiliateId = commission.sale?.affiliate.id;
    if (!affiliateId) return;
    const after = {
      currency: commission.currency,
      amount: commission.amount,
      state: commission.state,
    };
    await this.applyNewest(
      'commissions',
      merchantId,
      affiliateId,
      commission.id,
      commission.updated_at,
      after,
      (before) => commissionDelta(before as typeof after | null, after),
      first,
    );
  }

  async onSale(merchantId: string, sale: SaleView, first = false): Promise<void> {
    const after = {
      currency: sale.currency,
      gross_cents: sale.charge_amount_cents,
      net_cents: sale.sale_amount_cents,
    };
    await this.applyNewest(
      'sales',
      merchantId,
      sale.affiliate.id,
      sale.id,
      sale.updated_at,
      after,
      (before) => saleDelta(before as typeof after | null, after),
      first,
    );
  }

  /**
   * Recounts, from the facts, every total a fact marked longer than `REPAIR_AFTER_MS` ago may
   * have missed (its process died between the fact and the increment), then unmarks it.
   */
  async repair(): Promise<number> {
    const olderThan = new Date(this.now().getTime() - REPAIR_AFTER_MS);
    const { referrals, commissions, sales } = await this.store.findStale(olderThan, 500);
    const counted = new Set<string>();
    for (const fact of referrals) {
      const scopes: ({ affiliate_id: string } | { link_id: string })[] = [
        { affiliate_id: fact.affiliate_id },
      ];
      if (fact.link_id) scopes.push({ link_id: fact.link_id });
      for (const scope of scopes) {
        const key = `${fact.merchant_id}:${JSON.stringify(scope)}`;
        if (counted.has(key)) continue;
        counted.add(key);
        const counts = await this.store.countReferrals(fact.merchant_id, scope);
        if ('link_id' in scope)
          await this.store.setLinkCounts(fact.merchant_id, scope.link_id, counts);
        else await this.store.setAffiliateCounts(fact.merchant_id, scope.affiliate_id, counts);
      }
      await this.store.unmark('referrals', fact._id, fact.pending_since as Date);
    }
    const versioned: [VersionedFactKind, VersionedFact][] = [
      ...commissions.map((fact): [VersionedFactKind, VersionedFact] => ['commissions', fact]),
      ...sales.map((fact): [VersionedFactKind, VersionedFact] => ['sales', fact]),
    ];
    for (const [kind, fact] of versioned) {
      const key = `${fact.merchant_id}:stats:${fact.affiliate_id}`;
      if (!counted.has(key)) {
        counted.add(key);
        await this.recountStats(fact.merchant_id, fact.affiliate_id);
      }
      await this.store.unmark(kind, fact._id, fact.pending_since as Date);
    }
    return referrals.length + commissions.length + sales.length;
  }

  /**
   * Stores a newer version of a commission or sale fact and adds the difference to the
   * affiliate's statistics. An older or repeated version changes nothing. The write is an
   * insert (a new fact) or an update conditional on the version read, retried when another
   * writer got in between, so the difference is always taken against what was replaced.
   * A record's first event tries the insert without reading (an insert that succeeds proves
   * there was nothing before it), saving a round trip per new sale and commission; when the
   * fact exists after all, the duplicate key sends it down the read-and-compare path.
   */
  private async applyNewest(
    kind: VersionedFactKind,
    merchantId: string,
    affiliateId: string,
    id: string,
    updatedAt: string,
    fields: Record<string, unknown>,
    deltaFrom: (before: VersionedFact | null) => StatDelta,
    first: boolean,
  ): Promise<void> {
    const marker = this.now();
    for (let attempt = 0; ; attempt++) {
      const before =
        first && attempt === 0 ? null : await this.store.findVersionedFact(kind, merchantId, id);
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
      const written = await this.store.writeVersionedFact(kind, merchantId, id, before, next);
      if (written) {
        const delta = deltaFrom(before);
        if (delta.size > 0) await this.store.addStats(merchantId, affiliateId, delta);
        if (!inheritedMark) await this.store.unmark(kind, id, marker);
        return;
      }
      if (attempt >= 5) throw new Error(`fact ${id} kept changing; will retry`);
    }
  }

  private async recountStats(merchantId: string, affiliateId: string): Promise<void> {
    const { commissions, sales } = await this.store.findStatsFacts(merchantId, affiliateId);
    await this.store.setStats(merchantId, affiliateId, commissionStats(commissions, sales));
  }

  private async affiliateOfLink(
    merchantId: string,
    linkId: string | undefined,
  ): Promise<string | null> {
    if (!linkId) return null;
    return this.store.affiliateOfLink(merchantId, linkId);
  }
}
