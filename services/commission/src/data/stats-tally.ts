/**
 * `commission_stats` kept exactly by the commission service, with the writes that change it
 * (docs/decisions.md, "Commission stats kept by the commission service"). Without
 * transactions, each write of a commission or sale that changes the figures is covered by a
 * reservation, as tracking's referral counts are (services/tracking/src/data/referral-tallies.ts):
 *
 * 1. Before the write, the reservation (its id, and per record what it would add) is set on the
 *    affiliate's and the merchant's stats documents (`reserved.<id>`).
 * 2. The record's write carries the reservation's id in `stats_marks` (same document write). A
 *    change is conditional on the version read, so what it adds is exactly after − before.
 * 3. After the write, what applied is added (`$inc`) and the reservation removed, only while it
 *    is still there: added once.
 * Reservations and settles arriving together share one bulk write with one update per stats
 * document: a batch's settles and the next batch's reservations usually leave in the same update.
 *
 * If the process dies in between, the reservation stays; the sweep (stats-sweep.ts) settles it
 * after `STALE_MS` from the records' marks, which say exactly which writes happened. A repeated
 * message writes nothing (a duplicate insert, a condition that no longer holds), so it adds
 * nothing. Figures read are those settled: a write in flight shows once settled.
 */
import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongoose';
import type { CommissionStats } from '@aff/contracts';
import { Batcher } from '@aff/messaging';
import { ScopedRepository, failuresByIndex, isDuplicateKeyError, scoped } from '@aff/mongo';
import {
  STAT_KEYS,
  ZERO_STATS,
  addTo,
  countableCurrency,
  isZero,
  presentStats,
  type StatVector,
} from '../domain/commission-stats';
import type {
  PendingEntry,
  PendingRef,
  RecordKind,
  StatsDoc,
  StatsModels,
  StatsScope,
} from './commission-stats.schema';

/**
 * A reservation older than this is settled by the sweep. A writer that took half of it to
 * reserve gives up before its write, so a live writer never writes under a reservation the
 * sweep may already have settled.
 */
export const STALE_MS = 120_000;

/** What one write of a commission or sale changes in its affiliate's figures. */
export interface StatChange {
  merchantId: string;
  affiliateId: string;
  kind: RecordKind;
  recordId: string;
  currency: string;
  delta: StatVector;
}

interface DocKey {
  scope: StatsScope;
  merchantId: string;
  id: string;
}
interface ReserveItem extends DocKey {
  kind: 'reserve';
  entryId: string;
  entry: PendingEntry;
}
interface SettleItem extends DocKey {
  kind: 'settle';
  entryId: string;
  /** Per currency, what applied (a currency none of whose writes applied is absent). */
  delta: Map<string, StatVector>;
}
type TallyItem = ReserveItem | SettleItem;

/** What one update of a stats document does: reservations to add, settles to apply. */
interface DocWrite {
  key: DocKey;
  reserves: ReserveItem[];
  settles: SettleItem[];
}

const SCOPES: StatsScope[] = ['affiliate', 'merchant'];

/** Per currency, the sum of the refs whose write applied. */
export function appliedSum(
  refs: PendingRef[],
  applied: (ref: PendingRef) => boolean,
): Map<string, StatVector> {
  const sums = new Map<string, StatVector>();
  for (const ref of refs.filter(applied))
    sums.set(ref.cur, addTo(sums.get(ref.cur) ?? [...ZERO_STATS], ref.d));
  return sums;
}

/**
 * One update of a stats document: sets its new reservations, and for each settle adds what
 * applied and removes the reservation, conditional on every settled reservation still being
 * there. An upsert (a reservation may be the document's first): when a condition fails on the
 * existing document, the insert collides on `_id` and the update fails alone, changing nothing.
 */
export function docOp(w: DocWrite): AnyBulkWriteOperation<StatsDoc> {
  const conditions: Record<string, unknown> = {};
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, ''> = {};
  const $inc: Record<string, number> = {};
  for (const r of w.reserves) $set[`reserved.${r.entryId}`] = r.entry;
  const merged = new Map<string, StatVector>();
  for (const settle of w.settles) {
    conditions[`reserved.${settle.entryId}`] = { $exists: true };
    $unset[`reserved.${settle.entryId}`] = '';
    for (const [currency, figures] of settle.delta)
      merged.set(currency, addTo(merged.get(currency) ?? [...ZERO_STATS], figures));
  }
  for (const [currency, figures] of merged)
    STAT_KEYS.forEach((key, i) => ($inc[`currencies.${currency}.${key}`] = figures[i] ?? 0));
  const count = w.reserves.length - w.settles.length;
  if (count !== 0) $inc.reserved_count = count;
  const update: Record<string, unknown> = {};
  if (Object.keys($set).length) update.$set = $set;
  if (Object.keys($unset).length) update.$unset = $unset;
  if (Object.keys($inc).length) update.$inc = $inc;
  const filter = scoped<StatsDoc>(w.key.merchantId, { _id: w.key.id, ...conditions });
  return { updateOne: { filter, update, upsert: true } };
}

/** The writes one reservation covers, and the stats documents it is pending on. */
export class StatsReservation {
  constructor(
    readonly id: string,
    private readonly docs: { key: DocKey; refs: PendingRef[] }[],
    private readonly writes: Batcher<TallyItem>,
  ) {}

  /** Adds what applied (`applied(kind, record id)`) and pulls the reservation. */
  async settle(applied: (kind: RecordKind, recordId: string) => boolean): Promise<void> {
    await Promise.all(
      this.docs.map(({ key, refs }) =>
        this.writes.push({
          ...key,
          kind: 'settle',
          entryId: this.id,
          delta: appliedSum(refs, (ref) => applied(ref.k, ref.r)),
        }),
      ),
    );
  }
}

export class StatsTally {
  /** Reservations and settles arriving together share one bulk write (`write`). */
  private readonly writes = new Batcher<TallyItem>({
    maxItems: 500,
    flush: async (items) => {
      await this.write(items);
      return items.map(() => undefined);
    },
  });

  /** Reads of one merchant's stats documents. */
  private readonly scopedModels: Record<StatsScope, ScopedRepository<StatsDoc>>;

  constructor(
    readonly models: StatsModels,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.scopedModels = {
      affiliate: new ScopedRepository(models.affiliate),
      merchant: new ScopedRepository(models.merchant),
    };
  }

  /**
   * Reserves what the writes about to happen would add (null when none changes a figure).
   * Throws, so the write is not made and its caller retries, when reserving took so long that
   * the sweep might settle the reservation before the write lands.
   */
  async reserve(changes: StatChange[]): Promise<StatsReservation | null> {
    const id = randomUUID();
    const at = this.now();
    const docs = new Map<string, { key: DocKey; refs: PendingRef[] }>();
    for (const change of changes) {
      if (isZero(change.delta) || !countableCurrency(change.currency)) continue;
      const ref: PendingRef = {
        k: change.kind,
        r: change.recordId,
        cur: change.currency,
        d: change.delta,
      };
      const keys: DocKey[] = [
        { scope: 'affiliate', merchantId: change.merchantId, id: change.affiliateId },
        { scope: 'merchant', merchantId: change.merchantId, id: change.merchantId },
      ];
      for (const key of keys) {
        const name = `${key.scope}:${key.id}`;
        const doc = docs.get(name) ?? { key, refs: [] };
        doc.refs.push(ref);
        docs.set(name, doc);
      }
    }
    if (docs.size === 0) return null;
    const list = [...docs.values()];
    await Promise.all(
      list.map(({ key, refs }) =>
        this.writes.push({ ...key, kind: 'reserve', entryId: id, entry: { at, refs } }),
      ),
    );
    if (this.now().getTime() - at.getTime() > STALE_MS / 2)
      throw new Error('commission stats reserved too slowly: the write is left for a retry');
    return new StatsReservation(id, list, this.writes);
  }

  /** The merchant's figures over all its affiliates. */
  async merchantTotals(merchantId: string): Promise<CommissionStats> {
    const doc = await this.scopedModels.merchant.findOne(
      merchantId,
      { _id: merchantId },
      { projection: { currencies: 1 } },
    );
    return presentStats(doc?.currencies);
  }

  /** Each affiliate's figures (`{currencies: {}}` for one with none). */
  async ofAffiliates(merchantId: string, ids: string[]): Promise<Record<string, CommissionStats>> {
    const unique = [...new Set(ids)];
    const docs = unique.length
      ? await this.scopedModels.affiliate.find(
          merchantId,
          { _id: { $in: unique } },
          { projection: { currencies: 1 } },
        )
      : [];
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    return Object.fromEntries(unique.map((id) => [id, presentStats(byId.get(id)?.currencies)]));
  }

  /**
   * One update per stats document for everything of the batch (docOp). When one fails (a
   * settled reservation was gone: the sweep settled it while this process was stalled past
   * `STALE_MS`), its reservations are written alone and each settle is retried alone, so none
   * is added twice and none is lost.
   */
  private async write(items: TallyItem[]): Promise<void> {
    await Promise.all(
      SCOPES.map(async (scope) => {
        const byDoc = new Map<string, DocWrite>();
        for (const item of items.filter((i) => i.scope === scope)) {
          const doc = byDoc.get(item.id) ?? { key: item, reserves: [], settles: [] };
          if (item.kind === 'reserve') doc.reserves.push(item);
          else doc.settles.push(item);
          byDoc.set(item.id, doc);
        }
        if (byDoc.size === 0) return;
        const docs = [...byDoc.values()];
        const failed = await this.bulk(scope, docs.map(docOp));
        const retries = docs
          .filter((_, i) => failed[i])
          .flatMap((d): DocWrite[] => [
            ...(d.reserves.length ? [{ key: d.key, reserves: d.reserves, settles: [] }] : []),
            ...d.settles.map((s) => ({ key: d.key, reserves: [], settles: [s] })),
          ]);
        if (retries.length === 0) return;
        const again = await this.bulk(scope, retries.map(docOp));
        // A lone settle that fails was settled by the sweep; a lone reservation must not fail.
        if (retries.some((r, i) => again[i] && r.reserves.length > 0))
          throw new Error('commission stats reservation failed');
      }),
    );
  }

  /** Which operations failed their condition (a duplicate `_id`); anything else throws. */
  async bulk(scope: StatsScope, ops: AnyBulkWriteOperation<StatsDoc>[]): Promise<boolean[]> {
    try {
      await this.models[scope].bulkWrite(ops, { ordered: false });
      return ops.map(() => false);
    } catch (error) {
      const results = failuresByIndex(error, ops.length);
      if (results.some((e) => e && !isDuplicateKeyError(e))) throw error;
      return results.map((e) => e !== undefined);
    }
  }
}
