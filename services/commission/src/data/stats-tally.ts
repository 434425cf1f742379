/**
 * `commission_stats` kept exactly by the commission service, with the writes that change it
 * (docs/decisions.md, "Commission stats kept by the commission service"). Without
 * transactions, each write of a commission or sale that changes the figures is covered by a
 * reservation, as tracking's referral counts are (services/tracking/src/data/referral-tallies.ts):
 *
 * 1. Before the write, the reservation (its id, and per record what it would add) is pushed onto
 *    the affiliate's and the merchant's stats documents (`pending`). Concurrent reservations
 *    share one bulk write, one update per document.
 * 2. The record's write carries the reservation's id in `stats_marks` (same document write). A
 *    change is conditional on the version read, so what it adds is exactly after − before.
 * 3. After the write, one update per stats document adds what applied (`$inc`, all the batch's
 *    changes merged) and pulls the reservations, only while they are still there: added once.
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
  entry: PendingEntry;
}
interface SettleItem extends DocKey {
  entryId: string;
  /** Per currency, what applied (a currency none of whose writes applied is absent). */
  delta: Map<string, StatVector>;
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

export function settleOp(
  key: Pick<DocKey, 'merchantId' | 'id'>,
  entryIds: string[],
  delta: Map<string, StatVector>,
): AnyBulkWriteOperation<StatsDoc> {
  const $inc: Record<string, number> = {};
  for (const [currency, figures] of delta)
    STAT_KEYS.forEach((key, i) => ($inc[`currencies.${currency}.${key}`] = figures[i] ?? 0));
  return {
    updateOne: {
      filter: { _id: key.id, merchant_id: key.merchantId, 'pending.id': { $all: entryIds } },
      update: {
        ...(Object.keys($inc).length > 0 ? { $inc } : {}),
        $pull: { pending: { id: { $in: entryIds } } },
      } as never,
    },
  };
}

/** The writes one reservation covers, and the stats documents it is pending on. */
export class StatsReservation {
  constructor(
    readonly id: string,
    private readonly docs: { key: DocKey; refs: PendingRef[] }[],
    private readonly settles: Batcher<SettleItem>,
  ) {}

  /** Adds what applied (`applied(kind, record id)`) and pulls the reservation. */
  async settle(applied: (kind: RecordKind, recordId: string) => boolean): Promise<void> {
    await Promise.all(
      this.docs.map(({ key, refs }) =>
        this.settles.push({
          ...key,
          entryId: this.id,
          delta: appliedSum(refs, (ref) => applied(ref.k, ref.r)),
        }),
      ),
    );
  }
}

export class StatsTally {
  private readonly reserves = new Batcher<ReserveItem>({
    maxItems: 500,
    flush: async (items) => {
      await this.writeReserves(items);
      return items.map(() => undefined);
    },
  });
  private readonly settles = new Batcher<SettleItem>({
    maxItems: 500,
    flush: async (items) => {
      await this.writeSettles(items);
      return items.map(() => undefined);
    },
  });

  constructor(
    readonly models: StatsModels,
    private readonly now: () => Date = () => new Date(),
  ) {}

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
      list.map(({ key, refs }) => this.reserves.push({ ...key, entry: { id, at, refs } })),
    );
    if (this.now().getTime() - at.getTime() > STALE_MS / 2)
      throw new Error('commission stats reserved too slowly: the write is left for a retry');
    return new StatsReservation(id, list, this.settles);
  }

  /** The merchant's figures over all its affiliates. */
  async merchantTotals(merchantId: string): Promise<CommissionStats> {
    const doc = await this.models.merchant
      .findOne({ _id: merchantId, merchant_id: merchantId }, { currencies: 1 })
      .lean<StatsDoc>()
      .exec();
    return presentStats(doc?.currencies);
  }

  /** Each affiliate's figures (`{currencies: {}}` for one with none). */
  async ofAffiliates(merchantId: string, ids: string[]): Promise<Record<string, CommissionStats>> {
    const unique = [...new Set(ids)];
    const docs = unique.length
      ? await this.models.affiliate
          .find({ _id: { $in: unique }, merchant_id: merchantId }, { currencies: 1 })
          .lean<StatsDoc[]>()
          .exec()
      : [];
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    return Object.fromEntries(unique.map((id) => [id, presentStats(byId.get(id)?.currencies)]));
  }

  private async writeReserves(items: ReserveItem[]): Promise<void> {
    await Promise.all(
      SCOPES.map(async (scope) => {
        const merged = new Map<string, { key: DocKey; entries: PendingEntry[] }>();
        for (const item of items.filter((i) => i.scope === scope)) {
          const doc = merged.get(item.id) ?? { key: item, entries: [] };
          doc.entries.push(item.entry);
          merged.set(item.id, doc);
        }
        if (merged.size === 0) return;
        const ops = [...merged.values()].map(
          ({ key, entries }): AnyBulkWriteOperation<StatsDoc> => ({
            updateOne: {
              filter: { _id: key.id, merchant_id: key.merchantId },
              update: { $push: { pending: { $each: entries } } } as never,
              upsert: true,
            },
          }),
        );
        await this.models[scope].bulkWrite(ops, { ordered: false });
      }),
    );
  }

  /**
   * One update per stats document for all its settles in the batch, conditional on all their
   * reservations still being there. When one is not (the sweep settled it: this process was
   * stalled past `STALE_MS`), each settle is retried alone, so none is added twice.
   */
  private async writeSettles(items: SettleItem[]): Promise<void> {
    await Promise.all(
      SCOPES.map(async (scope) => {
        const mine = items.filter((i) => i.scope === scope);
        if (mine.length === 0) return;
        type Merged = { key: DocKey; ids: string[]; delta: Map<string, StatVector> };
        const merged = new Map<string, Merged>();
        for (const item of mine) {
          const doc: Merged = merged.get(item.id) ?? { key: item, ids: [], delta: new Map() };
          doc.ids.push(item.entryId);
          for (const [currency, figures] of item.delta)
            doc.delta.set(currency, addTo(doc.delta.get(currency) ?? [...ZERO_STATS], figures));
          merged.set(item.id, doc);
        }
        const model = this.models[scope];
        const ops = [...merged.values()].map(({ key, ids, delta }) => settleOp(key, ids, delta));
        const result = await model.bulkWrite(ops, { ordered: false });
        if (result.matchedCount === ops.length) return;
        const one = mine.map((i) => settleOp(i, [i.entryId], i.delta));
        await model.bulkWrite(one, { ordered: false });
      }),
    );
  }
}
