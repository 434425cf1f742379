/**
 * The affiliates' `commission_stats`, derived from commission and sale events. Each event first
 * updates a fact keyed by the commission service's record id, atomically against the version it
 * replaces: the difference is what the event changes, so the statistics move by `$inc` exactly
 * once per change, whatever the order or number of deliveries. The fact is marked
 * `pending_since` in that same write and unmarked once the increment is applied; after a crash
 * in between, the repair sweep recounts the affiliate's statistics from the facts. A later event
 * of the same fact never replaces an earlier mark (the earlier writer may be the one that died),
 * so a redelivery after a crash cannot hide the missed increment from the sweep. (Referral
 * counters are not derived here: tracking publishes them absolute, see referral-counts.ts.)
 */
import type { CommissionView, SaleView } from '@aff/contracts';
import { commissionStats } from './commission-stats';
import type { CommissionFact, SaleFact } from './records';
import type { CounterStore, VersionedFact, VersionedFactFields, VersionedFactKind } from './ports';
import { commissionDelta, saleDelta, type StatDelta } from './stat-deltas';

/** What a commission or sale fact records of its record (besides whose it is and its version). */
type FactValues =
  | Pick<CommissionFact, 'currency' | 'amount' | 'state'>
  | Pick<SaleFact, 'currency' | 'gross_cents' | 'net_cents'>;

/** How long a fact may stay marked before the repair sweep recounts what it touches. */
export const REPAIR_AFTER_MS = 120_000;

export class DerivedCounters {
  constructor(
    private readonly store: CounterStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

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
   * Recounts, from the facts, the statistics of every affiliate a fact marked longer than
   * `REPAIR_AFTER_MS` ago may have missed (its process died between the fact and the
   * increment), then unmarks it.
   */
  async repair(): Promise<number> {
    const olderThan = new Date(this.now().getTime() - REPAIR_AFTER_MS);
    const { commissions, sales } = await this.store.findStale(olderThan, 500);
    const counted = new Set<string>();
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
    return commissions.length + sales.length;
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
    fields: FactValues,
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
      const next: VersionedFactFields = {
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
}
