/**
 * The console overview's top affiliates by conversions, kept in one small document per merchant
 * (`affiliate_top`: the first `TOP_KEPT` affiliates with a conversion, in the sorted read's
 * order), so a view is one read by `_id` and one `_id $in` read of the affiliates it names, on
 * both servers. The sorted read of the merchant's affiliates (an index range on MongoDB 7, a scan
 * of the affiliates on the local server) runs only when the document cannot answer.
 *
 * Kept exact without transactions (docs/console.md, "Top affiliates"). Writers never decide from
 * the figures they were sent: after a batch's counters are raised, the affiliates that may enter
 * or move (domain/top-list.ts) are read back, and what was read is merged into the document by a
 * write conditional on its version (`v`), retried on a conflict. Merging the same reads twice
 * changes nothing, so a repeated message has no second effect; a process that died between the
 * counters and the list left its message unacknowledged, and the redelivery merges it. A view
 * answers from the document only when it is built (holds the merchant's history) and still
 * holds what the affiliates it names hold (a list shorter than asked is followed by the newest
 * affiliates without a conversion); otherwise the sorted read answers, and what it read is
 * merged in (that builds the list of a merchant from before it was kept, once).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { ScopedRepository, driverCollection } from '@aff/mongo';
import {
  TOP_KEPT,
  mayChangeTop,
  memoOf,
  mergeTop,
  rememberOut,
  sameTop,
  type TopEntry,
  type TopMemo,
} from '../domain/top-list';
import type { AffiliateDocument, AffiliateRecord } from './affiliate.schema';

export interface TopDoc {
  _id: string;
  /** Raised by every write: the condition of the next one. */
  v: number;
  /**
   * Set by the merge of a sorted read that began after the document existed: from then on every
   * raised counter is merged by its writer, so the document holds the whole history.
   */
  built: boolean;
  top: TopEntry[];
}

export function affiliateTopModel(connection: Connection): Model<TopDoc> {
  return (
    (connection.models.AffiliateTop as Model<TopDoc> | undefined) ??
    connection.model<TopDoc>(
      'AffiliateTop',
      new Schema<TopDoc>(
        {
          _id: { type: String, required: true },
          v: { type: Number, required: true },
          built: { type: Boolean, required: true },
          top: { type: [{ _id: false, id: String, conversions: Number, created_at: Date }] },
        },
        { versionKey: false },
      ),
      'affiliate_top',
    )
  );
}

/** Conflicting writers of one merchant's list retried before the caller's own retry (a nak). */
const ATTEMPTS = 10;
/** Merchants whose list this process remembers (to skip rows that cannot change it). */
const MEMO_MERCHANTS = 10_000;
const SORTED = { conversions: -1, created_at: -1, _id: -1 } as const;
const PLACE = { _id: 1, conversions: 1, created_at: 1 } as const;
type Placed = Pick<AffiliateRecord, '_id' | 'conversions' | 'created_at'>;

export class TopAffiliates {
  private readonly affiliates: ScopedRepository<AffiliateDocument>;
  private readonly memos = new Map<string, TopMemo>();
  /** Per merchant: what waits for the merge running now, merged next in one write. */
  private readonly waiting = new Map<string, Waiting>();
  private readonly merging = new Set<string>();

  constructor(
    private readonly model: Model<TopDoc>,
    affiliates: Model<AffiliateDocument>,
    private readonly keep = TOP_KEPT,
  ) {
    this.affiliates = new ScopedRepository(affiliates);
  }

  /**
   * After the counters of `rows` were raised: merges the affiliates whose count may change the
   * list, as stored now (at least what this batch raised them to). Creates the document when the
   * merchant has none (not built: a view builds it from the history).
   */
  async raised(merchantId: string, rows: { id: string; conversions?: number }[]): Promise<void> {
    const ids = mayChangeTop(rows, this.memos.get(merchantId));
    if (ids.length === 0) return;
    const read = await this.affiliates.find<Placed>(
      merchantId,
      { _id: { $in: ids } },
      { projection: PLACE },
    );
    if (read.length === 0) return;
    const merged = read.map(entryOf);
    const top = await this.mergeSoon(merchantId, merged, false);
    const memo = this.memos.get(merchantId);
    if (memo) rememberOut(memo, merged, top);
  }

  /** The merchant's first `n` affiliates by conversions, then the newest, then the greater id. */
  async top(merchantId: string, n: number): Promise<AffiliateRecord[]> {
    const doc = await driverCollection(this.model).findOne({ _id: merchantId });
    const answer = doc?.built ? await this.fromList(merchantId, doc.top, n) : null;
    if (answer) return answer;
    // The sorted read must begin after the document exists (see `built`).
    if (!doc) await this.created(merchantId);
    const sorted = await this.affiliates.find<AffiliateDocument>(
      merchantId,
      {},
      { sort: SORTED, limit: Math.max(n, this.keep) },
    );
    // The view is answered whatever happens to the list; the next view tries again.
    await this.mergeSoon(merchantId, sorted.map(entryOf), true).catch(() => undefined);
    return sorted.slice(0, n);
  }

  /**
   * The answer from a built list, or null when it cannot give it. An affiliate counted past what
   * the list holds means its writer has not merged it yet (or died before it, and its message
   * will come again): the database answers meanwhile. A list shorter than `keep` holds every
   * affiliate with a conversion, so the rest of the answer are the newest without one (the
   * sorted read's order past the converting ones; on MongoDB 7 a range of the same index).
   */
  private async fromList(merchantId: string, top: TopEntry[], n: number) {
    const named = top.slice(0, n);
    if (named.length < n && top.length >= this.keep) return null;
    const records = await this.affiliates.findByIds(
      merchantId,
      named.map((e) => e.id),
    );
    const byId = new Map(records.map((r) => [r._id, r]));
    const listed = named.map((e) => byId.get(e.id));
    if (!listed.every((r, i) => r && r.conversions === named[i]!.conversions)) return null;
    if (named.length === n) return listed as AffiliateRecord[];
    const rest = await this.affiliates.find<AffiliateRecord>(
      merchantId,
      { conversions: 0 },
      { sort: SORTED, limit: n - named.length },
    );
    return [...(listed as AffiliateRecord[]), ...rest];
  }

  private async created(merchantId: string): Promise<void> {
    await driverCollection(this.model)
      .insertOne({ _id: merchantId, v: 0, built: false, top: [] })
      .catch((error: { code?: number }) => {
        if (error.code !== 11000) throw error;
      });
  }

  /**
   * Merges of one merchant's list in this process run one at a time, and what arrives meanwhile
   * is merged together next: batches handled at once would otherwise each read the same version,
   * and all but one write would be retried (or, past the attempts, naked and redelivered).
   */
  private mergeSoon(merchantId: string, read: TopEntry[], built: boolean): Promise<TopEntry[]> {
    let next = this.waiting.get(merchantId);
    if (!next) {
      let settle!: Waiting['settle'];
      const done = new Promise<TopEntry[]>((resolve, reject) => {
        settle = (result) => (result instanceof Error ? reject(result) : resolve(result));
      });
      next = { read: [], built: false, done, settle };
      this.waiting.set(merchantId, next);
    }
    next.read.push(...read);
    next.built ||= built;
    if (!this.merging.has(merchantId)) void this.drain(merchantId);
    return next.done;
  }

  private async drain(merchantId: string): Promise<void> {
    this.merging.add(merchantId);
    for (let next = this.waiting.get(merchantId); next; next = this.waiting.get(merchantId)) {
      this.waiting.delete(merchantId);
      next.settle(
        await this.merge(merchantId, next.read, next.built).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        ),
      );
    }
    this.merging.delete(merchantId);
  }

  /**
   * Merges `read` into the list by a write conditional on the version it was read at; answers
   * the list as written (or as found, when the merge changed nothing).
   */
  private async merge(merchantId: string, read: TopEntry[], built: boolean): Promise<TopEntry[]> {
    const collection = driverCollection(this.model);
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const doc = await collection.findOne({ _id: merchantId });
      if (!doc) {
        await this.created(merchantId);
        continue;
      }
      const top = mergeTop(doc.top, read, this.keep);
      if (sameTop(top, doc.top) && (doc.built || !built)) return this.remember(merchantId, top);
      const result = await collection.updateOne(
        { _id: merchantId, v: doc.v },
        { $set: { top, built: doc.built || built }, $inc: { v: 1 } },
      );
      if (result.matchedCount === 1) return this.remember(merchantId, top);
    }
    throw new Error(`affiliate_top ${merchantId}: ${ATTEMPTS} conflicting writes in a row`);
  }

  private remember(merchantId: string, top: TopEntry[]): TopEntry[] {
    const before = this.memos.get(merchantId);
    this.memos.delete(merchantId);
    this.memos.set(merchantId, memoOf(top, this.keep, before));
    if (this.memos.size > MEMO_MERCHANTS) this.memos.delete(this.memos.keys().next().value!);
    return top;
  }
}

interface Waiting {
  read: TopEntry[];
  built: boolean;
  done: Promise<TopEntry[]>;
  settle: (result: TopEntry[] | Error) => void;
}

function entryOf(doc: Placed): TopEntry {
  return { id: doc._id, conversions: doc.conversions ?? 0, created_at: doc.created_at };
}
