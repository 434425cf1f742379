/**
 * A merchant's records newest first (the unfiltered list, the page merchants open most), with
 * its total. Both come from the merchant's count document (`MerchantCounts`), which keeps the
 * count and the newest `keepNewest` ids, raised in the same update after each insert batch: a
 * page among those ids costs one read of that document (the page's slice only) and one `_id $in`
 * look-up, which every server answers from the `_id` index, so the first pages cost the same
 * whatever the history, on the local server too, and right after a restart. A page beyond them
 * is a sorted query (indexed on MongoDB 7, a scan and an in-memory sort on the local server:
 * docs/local-database.md).
 *
 * Nothing is held in memory and nothing is loaded at start. Every replica reads the same
 * document, so a record is listed as soon as its insert batch returns, on every replica.
 */
import type { FilterQuery, Model } from 'mongoose';
import { limitedListRead } from './list-time-limit';
import type { MerchantCounts } from './merchant-counts';
import type { Page } from './tenant-repository';

/** 40 pages of 25; each id costs about 70 bytes in the document rewritten per insert batch. */
export const NEWEST_KEPT = 1_000;
const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

export interface NewestRow {
  _id: string;
  merchant_id: string;
  created_at: Date;
}

export class NewestList<T extends NewestRow> {
  constructor(
    private readonly model: Model<T>,
    private readonly counts: MerchantCounts,
  ) {}

  async page(merchantId: string, skip: number, limit: number): Promise<Page<T>> {
    const scoped = { merchant_id: merchantId } as FilterQuery<T>;
    const keep = this.counts.keepNewest;
    // Past the kept ids only the count is read (a merchant with fewer records has them all).
    const within = skip + limit <= keep;
    const { count: total, ids: held } = await this.counts.read(
      merchantId,
      within ? skip + limit : keep,
    );
    if (!within && total > keep) return { items: await this.sorted(scoped, skip, limit), total };
    // The ids the document must hold for this page; fewer means its records were written
    // before the document kept ids (or a crash lost a batch's push): the database answers.
    const expected = Math.max(0, Math.min(skip + limit, total, keep) - skip);
    // An id is held twice only if the outbox sweep counted a batch whose live writer was slow
    // beyond the sweep's grace (MerchantCounts.recount); it is listed once.
    const ids = [...new Set(held)].slice(skip, skip + limit);
    if (ids.length < expected) return { items: await this.sorted(scoped, skip, limit), total };
    if (ids.length === 0) return { items: [], total };
    const records = await this.model
      .find({ ...scoped, _id: { $in: ids } })
      .lean<T[]>()
      .exec();
    const byId = new Map(records.map((r) => [r._id, r]));
    return { items: ids.map((id) => byId.get(id)).filter((r): r is T => Boolean(r)), total };
  }

  private sorted(scoped: FilterQuery<T>, skip: number, limit: number): Promise<T[]> {
    // A scan and an in-memory sort on the local server: bounded (list-time-limit.ts).
    return limitedListRead(this.model.find(scoped), this.model)
      .sort(NEWEST_FIRST)
      .skip(skip)
      .limit(limit)
      .lean<T[]>()
      .exec();
  }
}
