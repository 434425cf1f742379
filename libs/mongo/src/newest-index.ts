/**
 * Every merchant's record ids, newest first, in memory: an unfiltered list (the page merchants
 * open most) then costs one `_id $in` lookup of the page and no count, however long the
 * history. A sorted page plus a count would scan every record on a server without range indexes
 * (mongo-java-server), and grow with the history on any server. Loaded at start (ids and
 * creation times only), then kept by this replica's own inserts and by the record's creation
 * event on a plain NATS subscription (other replicas' inserts); reloaded after a reconnect.
 */
import { checkEventData, eventSubject } from '@aff/contracts';
import type { EventEnvelope, EventMap, EventType } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  followEvents,
  ReplayWhileLoading,
  type NatsConnection,
  type Subscription,
} from '@aff/messaging';
import type { Model } from 'mongoose';

interface Entry {
  id: string;
  at: number;
}

export interface NewestIndexRow {
  _id: string;
  merchant_id: string;
  created_at: Date;
}

/** Event types whose data is a record's view with its `id` and `created_at`. */
type CreationEventType = {
  [T in EventType]: EventMap[T] extends { id: string; created_at: string } ? T : never;
}[EventType];

export interface NewestIndexOptions {
  /** The event announcing a new record, e.g. `evt.referral.created`. */
  createdSubject: string;
  /** The new record's id and creation time, from that event. */
  fromEvent: (event: EventEnvelope) => { id: string; createdAt: Date } | null;
}

export class NewestIndex {
  private byMerchant = new Map<string, Entry[]>();
  private known = new Set<string>();
  /** Records added while a (re)load reads the collection are added again on top of it. */
  private readonly loads = new ReplayWhileLoading();

  constructor(
    private readonly model: Model<NewestIndexRow>,
    private readonly opts: NewestIndexOptions,
  ) {}

  /**
   * The index of a collection whose creation event carries the record's view (`id`,
   * `created_at`), followed on that event's subject.
   */
  static of<T extends NewestIndexRow>(model: Model<T>, created: CreationEventType): NewestIndex {
    return new NewestIndex(model as unknown as Model<NewestIndexRow>, {
      createdSubject: eventSubject(created),
      fromEvent: (event) => {
        const checked = checkEventData(created, event.data);
        if (!checked.ok) return null;
        return { id: checked.data.id, createdAt: new Date(checked.data.created_at) };
      },
    });
  }

  load(): Promise<void> {
    return this.loads.load(() => this.loadSnapshot());
  }

  private async loadSnapshot(): Promise<void> {
    const rows = await this.model
      .find({}, { _id: 1, merchant_id: 1, created_at: 1 })
      .lean<NewestIndexRow[]>()
      .exec();
    const byMerchant = new Map<string, Entry[]>();
    const known = new Set<string>();
    for (const row of rows) {
      if (known.has(row._id)) continue;
      known.add(row._id);
      let entries = byMerchant.get(row.merchant_id);
      if (!entries) byMerchant.set(row.merchant_id, (entries = []));
      entries.push({ id: row._id, at: new Date(row.created_at).getTime() });
    }
    // One sort per merchant: inserting them one by one would be quadratic at start.
    for (const entries of byMerchant.values()) entries.sort((a, b) => (newer(a, b) ? -1 : 1));
    this.byMerchant = byMerchant;
    this.known = known;
  }

  /** Newest first, as the database orders them: `created_at` then `_id`, both descending. */
  add(merchantId: string, id: string, createdAt: Date): void {
    this.loads.apply(() => this.insert(merchantId, id, createdAt));
  }

  private insert(merchantId: string, id: string, createdAt: Date): void {
    if (this.known.has(id)) return;
    this.known.add(id);
    let entries = this.byMerchant.get(merchantId);
    if (!entries) this.byMerchant.set(merchantId, (entries = []));
    const entry = { id, at: createdAt.getTime() };
    // Entries arrive nearly in order, so the insertion point is almost always the front.
    let i = 0;
    while (i < entries.length && newer(entries[i]!, entry)) i++;
    entries.splice(i, 0, entry);
  }

  count(merchantId: string): number {
    return this.byMerchant.get(merchantId)?.length ?? 0;
  }

  page(merchantId: string, skip: number, limit: number): string[] {
    return (this.byMerchant.get(merchantId) ?? []).slice(skip, skip + limit).map((e) => e.id);
  }

  follow(nc: NatsConnection, log: Logger): Subscription[] {
    return followEvents(nc, {
      subjects: [this.opts.createdSubject],
      apply: (event) => {
        const created = this.opts.fromEvent(event);
        if (created) this.add(event.merchant_id, created.id, created.createdAt);
      },
      reload: () => this.load(),
      log,
    });
  }
}

function newer(a: Entry, b: Entry): boolean {
  return a.at > b.at || (a.at === b.at && a.id > b.id);
}
