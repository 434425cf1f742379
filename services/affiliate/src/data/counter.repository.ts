/**
 * The derived counters' facts and counters over MongoDB: the `CounterStore` port. The
 * increments, and the unmarks of concurrent events share unordered bulk writes (`BulkUpdates`),
 * so a hot affiliate costs one write per batch (see derived-counters.ts for the protocol).
 */
import type { Model } from 'mongoose';
import type { CommissionStats } from '@aff/contracts';
import { Batcher } from '@aff/messaging';
import {
  BulkUpdates,
  ConditionalUpserts,
  MerchantScopedLookup,
  insertManyUnordered,
  isDuplicateKeyError,
} from '@aff/mongo';
import type {
  CounterChanges,
  CounterStore,
  StatsFacts,
  VersionedFact,
  VersionedFactKind,
} from '../domain/ports';
import type { ReferralFact } from '../domain/records';
import { STAT_KEYS, type StatDelta } from '../domain/stat-deltas';
import type { AffiliateDocument } from './affiliate.schema';
import type { CouponDocument } from './coupon.schema';
import type { FactModels } from './facts.schema';
import type { LinkDocument } from './link.schema';

type FactKind = 'referrals' | VersionedFactKind;

export class CounterRepository implements CounterStore {
  private readonly bulk = new BulkUpdates();
  /** New facts of one kind arriving together share one unordered `insertMany`. */
  private readonly newFacts = new Map<FactKind, Batcher<Record<string, unknown>, void>>();
  /** Referral facts read together share one `find` (see `markReferral`). */
  private readonly referralFacts: MerchantScopedLookup<ReferralFact>;
  private readonly conditional = new ConditionalUpserts();

  constructor(
    private readonly facts: FactModels,
    private readonly affiliates: Model<AffiliateDocument>,
    private readonly links: Model<LinkDocument>,
    private readonly coupons: Model<CouponDocument>,
  ) {
    this.referralFacts = new MerchantScopedLookup(facts.referrals, '_id');
  }

  async recordCouponReferral(
    merchantId: string,
    referralId: string,
    couponId: string,
    reached: { lead: number; conversion: number },
  ): Promise<void> {
    await this.facts.couponReferrals.updateOne(
      { _id: referralId, merchant_id: merchantId },
      { $setOnInsert: { coupon_id: couponId }, $max: reached },
      { upsert: true },
    );
  }

  async countCouponReferrals(merchantId: string, couponId: string) {
    const base = { merchant_id: merchantId, coupon_id: couponId };
    const [leads, conversions] = await Promise.all([
      this.facts.couponReferrals.countDocuments({ ...base, lead: 1 }).exec(),
      this.facts.couponReferrals.countDocuments({ ...base, conversion: 1 }).exec(),
    ]);
    return { leads, conversions };
  }

  async setCouponCounts(
    merchantId: string,
    couponId: string,
    counts: { leads: number; conversions: number },
  ): Promise<void> {
    await this.coupons.updateOne({ _id: couponId, merchant_id: merchantId }, { $set: counts });
  }

  /**
   * The fact as it was before this raise. A read, then a write conditional on exactly the state
   * read (both batched with other events' reads and writes), so a burst of events of different
   * referrals costs two commands per batch instead of a `findOneAndUpdate` each. When another
   * writer changed or created the fact in between, the atomic read-and-raise decides.
   */
  async markReferral(
    merchantId: string,
    referralId: string,
    fact: { affiliateId: string; linkId: string | null },
    reached: { lead: number; conversion: number },
    marker: Date,
  ): Promise<ReferralFact | null> {
    const before = await this.referralFacts.get(merchantId, referralId);
    if (before) {
      // Facts are never deleted, so this upsert only ever updates (see ConditionalUpserts).
      const raised = await this.conditional.upsert(
        this.facts.referrals,
        {
          _id: referralId,
          merchant_id: merchantId,
          lead: before.lead,
          conversion: before.conversion,
        },
        // The oldest mark stays (see markReferralAtomically).
        { $max: reached, $min: { pending_since: marker } },
      );
      if (raised) return before;
    } else if (await this.insertReferralFact(merchantId, referralId, fact, reached, marker)) {
      return null;
    }
    return this.markReferralAtomically(merchantId, referralId, fact, reached, marker);
  }

  private markReferralAtomically(
    merchantId: string,
    referralId: string,
    fact: { affiliateId: string; linkId: string | null },
    reached: { lead: number; conversion: number },
    marker: Date,
  ): Promise<ReferralFact | null> {
    return retryOnDuplicate(() =>
      this.facts.referrals
        .findOneAndUpdate(
          { _id: referralId, merchant_id: merchantId },
          {
            $setOnInsert: { affiliate_id: fact.affiliateId, link_id: fact.linkId },
            $max: reached,
            // The oldest mark stays: if a writer before us died between its fact and its
            // increment, its mark must outlive our unmark so the repair sweep recounts.
            $min: { pending_since: marker },
          },
          { upsert: true, new: false },
        )
        .lean<ReferralFact>()
        .exec(),
    );
  }

  insertReferralFact(
    merchantId: string,
    referralId: string,
    fact: { affiliateId: string; linkId: string | null },
    reached: { lead: number; conversion: number },
    marker: Date,
  ): Promise<boolean> {
    return this.insertNewFact('referrals', {
      _id: referralId,
      merchant_id: merchantId,
      affiliate_id: fact.affiliateId,
      link_id: fact.linkId,
      ...reached,
      pending_since: marker,
    });
  }

  async incrementCounters(
    merchantId: string,
    target: { affiliateId: string; linkId: string | null },
    changes: CounterChanges,
  ): Promise<void> {
    await Promise.all([
      target.linkId
        ? this.bulk.updateOne(
            this.links,
            { _id: target.linkId, merchant_id: merchantId },
            { $inc: changes },
          )
        : undefined,
      this.bulk.updateOne(
        this.affiliates,
        { _id: target.affiliateId, merchant_id: merchantId },
        { $inc: changes },
      ),
    ]);
  }

  async countReferrals(
    merchantId: string,
    scope: { affiliate_id: string } | { link_id: string },
  ): Promise<CounterChanges> {
    const base = { merchant_id: merchantId, ...scope };
    const [visitors, leads, conversions] = await Promise.all([
      this.facts.referrals.countDocuments(base).exec(),
      this.facts.referrals.countDocuments({ ...base, lead: 1 }).exec(),
      this.facts.referrals.countDocuments({ ...base, conversion: 1 }).exec(),
    ]);
    return { visitors, leads, conversions };
  }

  async setAffiliateCounts(merchantId: string, affiliateId: string, counts: CounterChanges) {
    await this.affiliates.updateOne(
      { merchant_id: merchantId, _id: affiliateId },
      { $set: counts },
    );
  }

  async setLinkCounts(merchantId: string, linkId: string, counts: CounterChanges) {
    await this.links.updateOne({ merchant_id: merchantId, _id: linkId }, { $set: counts });
  }

  findVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
  ): Promise<VersionedFact | null> {
    return this.versioned(kind)
      .findOne({ _id: id, merchant_id: merchantId } as never)
      .lean<VersionedFact>()
      .exec();
  }

  async writeVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
    before: VersionedFact | null,
    next: Record<string, unknown>,
  ): Promise<boolean> {
    const model = this.versioned(kind);
    if (before) {
      const result = await model.updateOne(
        { _id: id, merchant_id: merchantId, updated_at: before.updated_at } as never,
        { $set: next } as never,
      );
      return result.matchedCount === 1;
    }
    return this.insertNewFact(kind, { _id: id, merchant_id: merchantId, ...next });
  }

  /** True when inserted, false when a fact with that id exists already. */
  private insertNewFact(kind: FactKind, doc: Record<string, unknown>): Promise<boolean> {
    return this.newFactsOf(kind)
      .push(doc)
      .then(
        () => true,
        (error: unknown) => {
          if (isDuplicateKeyError(error)) return false;
          throw error;
        },
      );
  }

  private newFactsOf(kind: FactKind): Batcher<Record<string, unknown>, void> {
    let batcher = this.newFacts.get(kind);
    if (!batcher) {
      const model = this.facts[kind] as unknown as Model<Record<string, unknown>>;
      batcher = new Batcher<Record<string, unknown>, void>({
        flush: (docs) => insertManyUnordered(model, docs),
      });
      this.newFacts.set(kind, batcher);
    }
    return batcher;
  }

  async addStats(merchantId: string, affiliateId: string, changes: StatDelta): Promise<void> {
    await this.bulk.updateOne(
      this.affiliates,
      { _id: affiliateId, merchant_id: merchantId },
      statsUpdate(changes),
    );
  }

  async setStats(merchantId: string, affiliateId: string, stats: CommissionStats): Promise<void> {
    await this.affiliates.updateOne(
      { _id: affiliateId, merchant_id: merchantId },
      { $set: { commission_stats: stats } },
    );
  }

  async findStatsFacts(merchantId: string, affiliateId: string): Promise<StatsFacts> {
    const scope = { merchant_id: merchantId, affiliate_id: affiliateId };
    const [commissions, sales] = await Promise.all([
      this.facts.commissions.find(scope).lean().exec(),
      this.facts.sales.find(scope).lean().exec(),
    ]);
    return { commissions, sales };
  }

  async findStale(olderThan: Date, limit: number) {
    const stale = { pending_since: { $lt: olderThan } };
    const [referrals, commissions, sales] = await Promise.all([
      this.facts.referrals.find(stale).limit(limit).lean().exec(),
      this.facts.commissions.find(stale).limit(limit).lean().exec(),
      this.facts.sales.find(stale).limit(limit).lean().exec(),
    ]);
    return { referrals, commissions, sales };
  }

  async unmark(kind: 'referrals' | VersionedFactKind, id: string, marker: Date): Promise<void> {
    await this.bulk.updateOne(
      this.facts[kind] as unknown as Model<{ _id: string }>,
      { _id: id, pending_since: marker },
      { $unset: { pending_since: 1 } },
    );
  }

  async affiliateOfLink(merchantId: string, linkId: string): Promise<string | null> {
    const link = await this.links.findOne({ _id: linkId, merchant_id: merchantId }).lean().exec();
    return link?.affiliate_id ?? null;
  }

  private versioned(kind: VersionedFactKind): Model<VersionedFact> {
    return this.facts[kind] as unknown as Model<VersionedFact>;
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

/** The `$inc` / `$set` of a delta on an affiliate document's `commission_stats`. */
export function statsUpdate(delta: StatDelta): {
  $inc: Record<string, number>;
  $set: Record<string, string>;
} {
  const $inc: Record<string, number> = {};
  const $set: Record<string, string> = {};
  for (const [currency, bucket] of delta) {
    // A currency becomes a field name: anything but an ISO-like code could address another path.
    if (!/^[A-Za-z0-9_]{1,10}$/.test(currency)) continue;
    for (const key of STAT_KEYS) {
      const path = `commission_stats.currencies.${currency}.${key}`;
      // Every key of a currency exists once it has any figure, as the recount shows it.
      $inc[`${path}.cents`] = bucket[key];
      $set[`${path}.currency_iso`] = currency;
    }
  }
  return { $inc, $set };
}
