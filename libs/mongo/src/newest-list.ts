/**
 * A merchant's records newest first (the unfiltered list, the page merchants open most), with
 * its total. The total is the merchant's counter (`MerchantCounts`). The newest `cacheSize` ids
 * of the merchants listed lately are kept in memory: a page among them costs one `_id $in`
 * look-up, which every server answers from the `_id` index; a page beyond them is a sorted query
 * (indexed on MongoDB, a scan on the local server: docs/local-database.md).
 *
 * Nothing is loaded at start, and memory does not grow with history: a merchant's ids are read
 * (newest `cacheSize`, one query) the first time its list is asked for, at most `maxMerchants`
 * merchants are kept (the least recently listed is dropped), and each keeps at most `cacheSize`
 * ids. A cached merchant is kept current by this replica's inserts and by the record's creation
 * event on a plain NATS subscription (other replicas' inserts); a reconnect drops the cache.
 */
import { checkEventData, eventSubject } from '@aff/contracts';
import type { EventEnvelope, EventMap, EventType } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import { followEvents, type NatsConnection, type Subscription } from '@aff/messaging';
import type { FilterQuery, Model } from 'mongoose';
import type { MerchantCounts } from './merchant-counts';
import type { Page } from './tenant-repository';

/** 200 pages of 25: deep enough for anyone paging by hand; about 0.5 MB per merchant. */
export const NEWEST_CACHE_SIZE = 5_000;
/** Merchants whose newest ids are kept: with the size above, at most about 30 MB. */
export const NEWEST_CACHE_MERCHANTS = 64;
const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

interface Entry {
  id: string;
  at: number;
}

export interface NewestRow {
  _id: string;
  merchant_id: string;
  created_at: Date;
}

/** Event types whose data is a record's view with its `id` and `created_at`. */
type CreationEventType = {
  [T in EventType]: EventMap[T] extends { id: string; created_at: string } ? T : never;
}[EventType];

export interface NewestListOptions {
  /** The event announcing a new record, e.g. `referral.created`. */
  created: CreationEventType;
  cacheSize?: number;
  maxMerchants?: number;
}

/** The newest ids of one merchant: a prefix of its list, or all of it (`complete`). */
class Newest {
  constructor(
    readonly entries: Entry[],
    public complete: boolean,
    private readonly size: number,
  ) {}

  insert(entry: Entry): void {
    const { entries } = this;
    // Entries arrive nearly in order, so the insertion point is almost always the front.
    let i = 0;
    while (i < entries.length && newer(entries[i]!, entry)) i++;
    if (entries[i]?.id === entry.id) return; // a repeated event
    if (i === entries.length && !this.complete) return; // older than the prefix held: not ours
    entries.splice(i, 0, entry);
    if (entries.length > this.size) {
      entries.pop();
      this.complete = false;
    }
  }
}

export class NewestList<T extends NewestRow> {
  private merchants = new Map<string, Newest>();
  private readonly filling = new Map<string, { adds: Entry[]; done: Promise<Newest> }>();
  /** Bumped by a reconnect: a read begun before it must not be kept. */
  private generation = 0;
  private readonly cacheSize: number;
  private readonly maxMerchants: number;

  constructor(
    private readonly model: Model<T>,
    private readonly counts: MerchantCounts,
    private readonly opts: NewestListOptions,
  ) {
    this.cacheSize = opts.cacheSize ?? NEWEST_CACHE_SIZE;
    this.maxMerchants = opts.maxMerchants ?? NEWEST_CACHE_MERCHANTS;
  }

  /** A record written (by this replica, or announced by its creation event). */
  add(merchantId: string, id: string, createdAt: Date): void {
    const entry = { id, at: createdAt.getTime() };
    this.merchants.get(merchantId)?.insert(entry);
    this.filling.get(merchantId)?.adds.push(entry);
  }

  async page(merchantId: string, skip: number, limit: number): Promise<Page<T>> {
    const [newest, counted] = await Promise.all([
      this.newest(merchantId),
      this.counts.get(merchantId),
    ]);
    const scoped = { merchant_id: merchantId } as FilterQuery<T>;
    // A complete list is its own exact total (and needs no counter written before it).
    const total = newest.complete ? newest.entries.length : counted;
    if (!newest.complete && skip + limit > newest.entries.length) {
      const items = await this.model
        .find(scoped)
        .sort(NEWEST_FIRST)
        .skip(skip)
        .limit(limit)
        .lean<T[]>()
        .exec();
      return { items, total };
    }
    const ids = newest.entries.slice(skip, skip + limit).map((e) => e.id);
    if (ids.length === 0) return { items: [], total };
    const records = await this.model
      .find({ ...scoped, _id: { $in: ids } })
      .lean<T[]>()
      .exec();
    const byId = new Map(records.map((r) => [r._id, r]));
    return { items: ids.map((id) => byId.get(id)).filter((r): r is T => Boolean(r)), total };
  }

  follow(nc: NatsConnection, log: Logger): Subscription[] {
    const { created } = this.opts;
    return followEvents(nc, {
      subjects: [eventSubject(created)],
      apply: (event: EventEnvelope) => {
        const checked = checkEventData(created, event.data);
        if (checked.ok)
          this.add(event.merchant_id, checked.data.id, new Date(checked.data.created_at));
      },
      // Inserts announced while disconnected were missed: read again when next listed.
      reload: () => {
        this.generation++;
        this.merchants = new Map();
        return Promise.resolve();
      },
      log,
    });
  }

  private newest(merchantId: string): Promise<Newest> {
    const cached = this.merchants.get(merchantId);
    if (cached) {
      // Most recently listed last: the first in the map is the one to drop.
      this.merchants.delete(merchantId);
      this.merchants.set(merchantId, cached);
      return Promise.resolve(cached);
    }
    const filling = this.filling.get(merchantId);
    if (filling) return filling.done;
    const adds: Entry[] = [];
    const done = this.read(merchantId, adds).finally(() => this.filling.delete(merchantId));
    this.filling.set(merchantId, { adds, done });
    return done;
  }

  /** The newest ids from the database, plus what was added while they were read. */
  private async read(merchantId: string, adds: Entry[]): Promise<Newest> {
    const generation = this.generation;
    const rows = await this.model
      .find({ merchant_id: merchantId } as FilterQuery<T>, { _id: 1, created_at: 1 })
      .sort(NEWEST_FIRST)
      .limit(this.cacheSize)
      .lean<Pick<NewestRow, '_id' | 'created_at'>[]>()
      .exec();
    const entries = rows.map((r) => ({ id: r._id, at: new Date(r.created_at).getTime() }));
    const newest = new Newest(entries, rows.length < this.cacheSize, this.cacheSize);
    for (const entry of adds) newest.insert(entry);
    if (generation === this.generation) {
      this.merchants.set(merchantId, newest);
      if (this.merchants.size > this.maxMerchants)
        this.merchants.delete(this.merchants.keys().next().value!);
    }
    return newest;
  }
}

/** Newest first, as the database orders them: `created_at` then `_id`, both descending. */
function newer(a: Entry, b: Entry): boolean {
  return a.at > b.at || (a.at === b.at && a.id > b.id);
}
