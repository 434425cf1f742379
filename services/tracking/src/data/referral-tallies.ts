/**
 * Exact referral counts (visitors, leads, conversions) per link, affiliate and coupon, kept by
 * tracking, which writes the referrals they count, and published as absolute figures once per
 * batch (`referral_counts.updated`) for the affiliate service to apply with `$max`; and per
 * merchant (the console's overview totals, read by `getReferralTotals`, not published).
 *
 * Exact across a crash without transactions: a write that changes counts is covered by a
 * reservation. Before the write, the reservation (its id, and per referral what it would add)
 * is pushed onto each count document it touches (`pending`), and the referral write carries the
 * reservation's id on each step it makes (`count_marks.<step>`, in the same document write).
 * After the write, one update per count document adds what applied and pulls the reservation,
 * atomically and only while the reservation is still there, so it is added once. If the process
 * dies in between, the reservation stays, and the sweep (tally-sweep.ts) settles it after
 * `STALE_MS` from the referrals' marks, which say exactly which writes happened. Every figure
 * read from a count document is therefore at most the true count. docs/decisions.md,
 * "Referral counts", has the crash cases.
 */
import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongoose';
import type { ReferralCount } from '@aff/contracts';
import { Batcher } from '@aff/messaging';
import { scoped } from '@aff/mongo';
import type { LinkCounts } from '../domain/records';
import {
  Reservation,
  ZERO,
  add,
  pick,
  settleOp,
  stepsOf,
  targetsOf,
  type CountChange,
  type DocKey,
  type SettleItem,
} from './referral-reservation';
import {
  PUBLISHED_TARGETS,
  TALLY_TARGETS,
  type PendingEntry,
  type PendingRef,
  type TallyDoc,
  type TallyModels,
} from './referral-tally.schema';

export { Reservation, settleOp, sumOf, type CountChange } from './referral-reservation';

/**
 * A reservation older than this is settled by the sweep. A writer that took half of it to
 * reserve gives up before its write (see `reserve`), so a live writer never writes under a
 * reservation the sweep may already have settled.
 */
export const STALE_MS = 120_000;

export type PublishCounts = (merchantId: string, counts: ReferralCount[]) => Promise<void>;

interface ReserveItem extends DocKey {
  entry: PendingEntry;
}

export class ReferralTallies {
  /** Reservations of concurrent writes share one unordered `bulkWrite` per collection. */
  private readonly reserves = new Batcher<ReserveItem>({
    maxItems: 500,
    flush: async (items) => {
      await this.writeReserves(items);
      return items.map(() => undefined);
    },
  });
  /** Settles likewise, then one read and one published event per merchant per batch. */
  private readonly settles = new Batcher<SettleItem>({
    maxItems: 500,
    flush: async (items) => {
      await this.writeSettles(items);
      await this.publishOf(items).catch(this.onPublishFailed);
      return items.map(() => undefined);
    },
  });

  constructor(
    readonly models: TallyModels,
    private readonly publish: PublishCounts,
    /** A publish that failed is repeated by the sweep (it publishes what settled lately). */
    private readonly onPublishFailed: (error: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Reserves the counts of writes about to happen (null when none changes a count). Throws,
   * so the write is not made and its caller retries, when the reservation took so long that
   * the sweep might settle it before the write lands.
   */
  async reserve(changes: CountChange[]): Promise<Reservation | null> {
    const id = randomUUID();
    const at = this.now();
    const docs = new Map<string, { key: DocKey; refs: PendingRef[] }>();
    for (const { referral, delta } of changes) {
      const [step] = stepsOf(delta);
      if (!step) continue;
      const ref: PendingRef = { r: referral._id, step, ...pick(delta) };
      for (const [target, targetId] of targetsOf(referral)) {
        const key = `${target}:${referral.merchant_id}:${targetId}`;
        let doc = docs.get(key);
        if (!doc) {
          doc = { key: { target, merchantId: referral.merchant_id, id: targetId }, refs: [] };
          docs.set(key, doc);
        }
        // A referral twice in one batch (intake and a reader wrote it at once): one inserts.
        if (!doc.refs.some((other) => other.r === ref.r)) doc.refs.push(ref);
      }
    }
    if (docs.size === 0) return null;
    const list = [...docs.values()];
    await Promise.all(
      list.map(({ key, refs }) => this.reserves.push({ ...key, entry: { id, at, refs } })),
    );
    if (this.now().getTime() - at.getTime() > STALE_MS / 2) {
      throw new Error('referral counts reserved too slowly: the write is left for a retry');
    }
    return new Reservation(id, list, this.settles);
  }

  /**
   * The merchant's visitors, leads and conversions: its own count document, kept by the same
   * reservations as the affiliates' (so it is their sum, settled), one read by `_id`.
   */
  async merchantTotals(merchantId: string): Promise<LinkCounts> {
    const doc = await this.models.merchant
      .findById(merchantId, { visitors: 1, leads: 1, conversions: 1 })
      .lean<TallyDoc>()
      .exec();
    return pick(doc ?? {});
  }

  /** Publishes the counts of every document settled since `since` (the sweep's repeat). */
  async publishSettledSince(since: Date): Promise<number> {
    const items: DocKey[] = [];
    for (const target of PUBLISHED_TARGETS) {
      const docs = await this.models[target]
        .find({ settled_at: { $gte: since } }, { _id: 1, merchant_id: 1 })
        .lean<Pick<TallyDoc, '_id' | 'merchant_id'>[]>()
        .exec();
      items.push(...docs.map((d) => ({ target, merchantId: d.merchant_id, id: d._id })));
    }
    await this.publishOf(items);
    return items.length;
  }

  private async writeReserves(items: ReserveItem[]): Promise<void> {
    await Promise.all(
      TALLY_TARGETS.map(async (target) => {
        const merged = new Map<string, { key: DocKey; entries: PendingEntry[] }>();
        for (const item of items.filter((i) => i.target === target)) {
          const key = `${item.merchantId}:${item.id}`;
          const doc = merged.get(key) ?? { key: item, entries: [] };
          doc.entries.push(item.entry);
          merged.set(key, doc);
        }
        if (merged.size === 0) return;
        const ops = [...merged.values()].map(
          ({ key, entries }): AnyBulkWriteOperation<TallyDoc> => ({
            updateOne: {
              filter: scoped<TallyDoc>(key.merchantId, { _id: key.id }),
              update: { $push: { pending: { $each: entries } } },
              upsert: true,
            },
          }),
        );
        await this.models[target].bulkWrite(ops, { ordered: false });
      }),
    );
  }

  /**
   * One update per count document for all its settles in the batch, conditional on all their
   * reservations still being there. When one is not (the sweep settled it: this process was
   * stalled past `STALE_MS`), each settle is retried alone, so none is added twice.
   */
  private async writeSettles(items: SettleItem[]): Promise<void> {
    const settledAt = this.now();
    await Promise.all(
      TALLY_TARGETS.map(async (target) => {
        const mine = items.filter((i) => i.target === target);
        if (mine.length === 0) return;
        const merged = new Map<string, { key: DocKey; ids: string[]; delta: LinkCounts }>();
        for (const item of mine) {
          const key = `${item.merchantId}:${item.id}`;
          const doc = merged.get(key) ?? { key: item, ids: [], delta: { ...ZERO } };
          doc.ids.push(item.entryId);
          doc.delta = add(doc.delta, item.delta);
          merged.set(key, doc);
        }
        const model = this.models[target];
        const ops = [...merged.values()].map(({ key, ids, delta }) =>
          settleOp(key, ids, delta, settledAt),
        );
        const result = await model.bulkWrite(ops, { ordered: false });
        if (result.matchedCount === ops.length) return;
        const one = mine.map((i) => settleOp(i, [i.entryId], i.delta, settledAt));
        await model.bulkWrite(one, { ordered: false });
      }),
    );
  }

  /** Reads the documents' counts now and publishes them, one event per merchant. */
  private async publishOf(keys: DocKey[]): Promise<void> {
    const byMerchant = new Map<string, ReferralCount[]>();
    await Promise.all(
      PUBLISHED_TARGETS.map(async (target) => {
        const ids = [...new Set(keys.filter((k) => k.target === target).map((k) => k.id))];
        if (ids.length === 0) return;
        const docs = await this.models[target]
          .find({ _id: { $in: ids } }, { pending: 0, settled_at: 0 })
          .lean<TallyDoc[]>()
          .exec();
        for (const doc of docs) {
          const counts = byMerchant.get(doc.merchant_id) ?? [];
          counts.push({ target, id: doc._id, ...pick(doc) });
          byMerchant.set(doc.merchant_id, counts);
        }
      }),
    );
    for (const [merchantId, counts] of byMerchant) {
      for (let i = 0; i < counts.length; i += 500) {
        await this.publish(merchantId, counts.slice(i, i + 500));
      }
    }
  }
}
