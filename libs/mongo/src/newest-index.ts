/**
 * Every merchant's record ids, newest first, in memory: an unfiltered list (the page merchants
 * open most) then costs one `_id $in` lookup of the page and no count, however long the
 * history. A sorted page plus a count would scan every record on a server without range indexes
 * (mongo-java-server), and grow with the history on any server. Loaded at start (ids and
 * creation times only), then kept by this replica's own inserts and by the record's creation
 * event on a plain NATS subscription (other replicas' inserts); reloaded after a reconnect.
 */
import type { EventEnvelope } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import { followEvents, type NatsConnection, type Subscription } from '@aff/messaging';
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

export interface NewestIndexOptions {
  /** The event announcing a new record, e.g. `evt.referral.created`. */
  createdSubject: string;
  /** The new record's id and creation time, from that event. */
  fromEvent: (event: EventEnvelope) => { id: string; createdAt: Date } | null;
}

export class NewestIndex {
  private byMerchant = new Map<string, Entry[]>();
  private known = new Set<string>();
  /**
   * Records added while a (re)load reads the collection: the snapshot replaces the maps, and a
   * record inserted after the read began would otherwise vanish from the list until the next
   * reload. They are added again on top of the snapshot.
   */
  private addedDuringLoad: { merchantId: string; id: string; createdAt: Date }[] | undefined;

  constructor(
    private readonly model: Model<NewestIndexRow>,
    private readonly opts: NewestIndexOptions,
  ) {}

  /** The index of a collection whose creation event carries the record's view (`id`, `created_at`). */
  static of<T extends NewestIndexRow>(model: Model<T>, createdSubject: string): NewestIndex {
    return new NewestIndex(model as unknown as Model<NewestIndexRow>, {
      createdSubject,
      fromEvent: (event) => {
        const view = event.data as { id?: unknown; created_at?: unknown };
        if (typeof view.id !== 'string' || typeof view.created_at !== 'string') return null;
        return { id: view.id, createdAt: new Date(view.created_at) };
      },
    });
  }

  async load(): Promise<void> {
    const addedDuringLoad: { merchantId: string; id: string; createdAt: Date }[] = [];
    this.addedDuringLoad = addedDuringLoad;
    try {
      await this.loadSnapshot();
    } finally {
      if (this.addedDuringLoad === addedDuringLoad) this.addedDuringLoad = undefined;
    }
    for (const added of addedDuringLoad) this.add(added.merchantId, added.id, added.createdAt);
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
    this.addedDuringLoad?.push({ merchantId, id, createdAt });
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
