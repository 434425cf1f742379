/**
 * The commission and sale facts behind `commission_stats`: the `CounterStore` port. New facts
 * arriving together share one unordered `insertMany`, and unmarks one unordered bulk write; the
 * statistics themselves are written by the affiliates' repository (see derived-counters.ts for
 * the protocol).
 */
import type { CommissionStats } from '@aff/contracts';
import { Batcher } from '@aff/messaging';
import { BulkUpdates, insertManyUnordered, isDuplicateKeyError } from '@aff/mongo';
import type {
  AffiliateStatsStore,
  CounterStore,
  StatsFacts,
  VersionedFact,
  VersionedFactFields,
  VersionedFactKind,
} from '../domain/ports';
import type { CommissionFact, SaleFact } from '../domain/records';
import type { StatDelta } from '../domain/stat-deltas';
import type { FactModels, StoredFact } from './facts.schema';

export class StatsFactsRepository implements CounterStore {
  private readonly bulk = new BulkUpdates();
  /** New facts of one kind arriving together share one unordered `insertMany`. */
  private readonly newFacts: Record<VersionedFactKind, Batcher<StoredFact, void>>;

  constructor(
    private readonly facts: FactModels,
    private readonly affiliates: AffiliateStatsStore,
  ) {
    const batcher = (kind: VersionedFactKind) =>
      new Batcher<StoredFact, void>({ flush: (docs) => insertManyUnordered(facts[kind], docs) });
    this.newFacts = { commissions: batcher('commissions'), sales: batcher('sales') };
  }

  findVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
  ): Promise<VersionedFact | null> {
    return this.facts[kind]
      .findOne({ _id: id, merchant_id: merchantId })
      .lean<VersionedFact>()
      .exec();
  }

  async writeVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
    before: VersionedFact | null,
    next: VersionedFactFields,
  ): Promise<boolean> {
    if (before) {
      const result = await this.facts[kind].updateOne(
        { _id: id, merchant_id: merchantId, updated_at: before.updated_at },
        { $set: next },
      );
      return result.matchedCount === 1;
    }
    // True when inserted, false when a fact with that id exists already.
    return this.newFacts[kind].push({ _id: id, merchant_id: merchantId, ...next }).then(
      () => true,
      (error: unknown) => {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      },
    );
  }

  addStats(merchantId: string, affiliateId: string, changes: StatDelta): Promise<void> {
    return this.affiliates.addStats(merchantId, affiliateId, changes);
  }

  setStats(merchantId: string, affiliateId: string, stats: CommissionStats): Promise<void> {
    return this.affiliates.setStats(merchantId, affiliateId, stats);
  }

  async findStatsFacts(merchantId: string, affiliateId: string): Promise<StatsFacts> {
    const scope = { merchant_id: merchantId, affiliate_id: affiliateId };
    const [commissions, sales] = await Promise.all([
      this.facts.commissions.find(scope).lean<CommissionFact[]>().exec(),
      this.facts.sales.find(scope).lean<SaleFact[]>().exec(),
    ]);
    return { commissions, sales };
  }

  async findStale(olderThan: Date, limit: number) {
    const stale = { pending_since: { $lt: olderThan } };
    const [commissions, sales] = await Promise.all([
      this.facts.commissions.find(stale).limit(limit).lean<CommissionFact[]>().exec(),
      this.facts.sales.find(stale).limit(limit).lean<SaleFact[]>().exec(),
    ]);
    return { commissions, sales };
  }

  async unmark(kind: VersionedFactKind, id: string, marker: Date): Promise<void> {
    await this.bulk.updateOne(
      this.facts[kind],
      { _id: id, pending_since: marker },
      { $unset: { pending_since: 1 } },
    );
  }
}
