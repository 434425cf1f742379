/**
 * Outbox kept inside the aggregate's own document: the event is written in the same single-
 * document write as the state change (no transactions needed), relayed to JetStream, then
 * removed with `$pull` by its id. Removals of many events share one unordered `bulkWrite`, with
 * one update per document.
 */
import { metrics } from '@opentelemetry/api';
import type { AnyBulkWriteOperation, Collection, Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import { Batcher } from '@aff/messaging';
import type { EventContext, PendingEvent, PendingEventStore, PendingLookup } from '@aff/messaging';

export const PENDING_EVENTS_FIELD = 'pending_events';

export interface StoredPendingEvent {
  id: string;
  queued_at: Date;
  event: EventEnvelope;
  context: EventContext;
}

/** The value to `$push` (or insert) into `pending_events`; JSON-clean, like what is read back. */
export function toStoredPendingEvent(
  event: EventEnvelope,
  context: EventContext,
): StoredPendingEvent {
  return {
    id: event.id,
    queued_at: new Date(),
    event: JSON.parse(JSON.stringify(event)) as EventEnvelope,
    context: JSON.parse(JSON.stringify(context)) as EventContext,
  };
}

interface Removal {
  documentId: string;
  eventId: string;
}

const removers = new WeakMap<Collection, Batcher<Removal>>();

/** One batcher per collection turns many `$pull`s into one bulk write. */
function removerFor(collection: Collection): Batcher<Removal> {
  let remover = removers.get(collection);
  if (!remover) {
    remover = new Batcher<Removal>({
      maxItems: 500,
      flush: async (items) => {
        // The events of one write are published together: one `$pull` clears them all.
        const byDocument = new Map<string, string[]>();
        for (const { documentId, eventId } of items) {
          const ids = byDocument.get(documentId);
          if (ids) ids.push(eventId);
          else byDocument.set(documentId, [eventId]);
        }
        const ops = [...byDocument].map(([documentId, eventIds]): AnyBulkWriteOperation => ({
          updateOne: {
            filter: { _id: documentId },
            update: {
              $pull: {
                [PENDING_EVENTS_FIELD]: {
                  id: eventIds.length === 1 ? eventIds[0] : { $in: eventIds },
                },
              },
            } as never,
          },
        }));
        await collection.bulkWrite(ops as never, { ordered: false });
        return items.map(() => undefined);
      },
    });
    removers.set(collection, remover);
  }
  return remover;
}

export function relayItem(
  collection: Collection,
  documentId: string,
  stored: StoredPendingEvent,
): PendingEvent {
  return {
    event: stored.event,
    context: stored.context,
    documentKey: `${collection.collectionName}:${documentId}`,
    markPublished: () => removerFor(collection).push({ documentId, eventId: stored.id }),
  };
}

/** What the sweep finds of a document with events still pending. */
export interface LeftoverDocument {
  _id: string;
  merchant_id: string;
  created_at: Date;
}

/**
 * Steps a writer takes after its insert and before it relays the insert's events (a count),
 * which a writer that died in between never took: the sweep runs them on what it finds before
 * relaying, and relays nothing of the batch when they fail (the next sweep tries again).
 */
const leftoverRepairs = new WeakMap<Collection, (docs: LeftoverDocument[]) => Promise<void>>();

/**
 * How old pending events must be before the sweep repairs and relays them, in collections with
 * a repair: longer than the sweep's usual grace, so a live writer (another replica) whose count
 * is merely slow is not counted a second time by the sweep.
 */
export const REPAIR_GRACE_MS = 10_000;

export function repairLeftoversWith(
  collection: Collection,
  repair: (docs: LeftoverDocument[]) => Promise<void>,
): void {
  leftoverRepairs.set(collection, repair);
}

/**
 * Documents of each outbox collection known to hold pending events: what the last sweep found
 * (a full sweep replaces its collection's set) and what look-ups by `_id` found since, less the
 * documents cleared meanwhile. The `outbox.backlog` gauge reports their number, so a scrape
 * costs no read: counting them would scan every outbox collection on the local server. Between
 * two sweeps it does not see a dead writer's leftovers; a failed relay shows in the log.
 */
const knownPending = new Map<string, Set<string>>();

function observeOutbox(collection: Collection): void {
  if (knownPending.size === 0) {
    metrics
      .getMeter('affiliate-platform')
      .createObservableGauge('outbox.backlog', {
        description: 'Documents holding events not yet relayed to JetStream (as last found)',
        unit: '{document}',
      })
      .addCallback((result) => {
        for (const [name, ids] of knownPending)
          result.observe(ids.size, { 'db.collection.name': name });
      });
  }
  if (!knownPending.has(collection.collectionName))
    knownPending.set(collection.collectionName, new Set());
}

/** A pending event found by a sweep or look-up; its document leaves the backlog once cleared. */
function foundItem(collection: Collection, documentId: string, stored: StoredPendingEvent) {
  const item = relayItem(collection, documentId, stored);
  const markPublished = item.markPublished;
  return {
    ...item,
    markPublished: async () => {
      await markPublished();
      knownPending.get(collection.collectionName)?.delete(documentId);
    },
  };
}

interface FoundDoc {
  _id: unknown;
  merchant_id?: unknown;
  created_at?: unknown;
  [PENDING_EVENTS_FIELD]?: StoredPendingEvent[];
}

export class MongoPendingEventStore implements PendingEventStore {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly byName = new Map<string, Model<any>>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly models: Model<any>[]) {
    for (const model of models) {
      observeOutbox(model.collection);
      this.byName.set(model.collection.collectionName, model);
    }
  }

  /** A full sweep: on the local server, a scan of each outbox collection. */
  async findPending(olderThan: Date, limit: number): Promise<PendingEvent[]> {
    const items: PendingEvent[] = [];
    for (const model of this.models) {
      const cutoff = this.cutoff(model, olderThan);
      const docs = await model.collection
        .find({ [`${PENDING_EVENTS_FIELD}.queued_at`]: { $lt: cutoff } }, this.projection(model))
        .limit(limit)
        .toArray();
      knownPending.set(model.collection.collectionName, new Set(docs.map((d) => String(d._id))));
      items.push(...(await this.take(model, docs as FoundDoc[], cutoff).then((t) => t.items)));
    }
    return items;
  }

  /** The given documents only, by `_id` (`collection:id` keys, as `relayItem` makes them). */
  async findPendingIn(documentKeys: string[], olderThan: Date): Promise<PendingLookup> {
    const found: PendingLookup = { items: [], younger: [] };
    const byCollection = new Map<string, string[]>();
    for (const key of documentKeys) {
      const at = key.indexOf(':');
      const name = key.slice(0, at);
      byCollection.set(name, [...(byCollection.get(name) ?? []), key.slice(at + 1)]);
    }
    for (const [name, ids] of byCollection) {
      const model = this.byName.get(name);
      if (!model) continue;
      const cutoff = this.cutoff(model, olderThan);
      const docs = await model.collection
        .find({ _id: { $in: ids } } as never, this.projection(model))
        .toArray();
      const known = knownPending.get(name)!;
      for (const id of ids) known.delete(id);
      for (const doc of docs as FoundDoc[])
        if ((doc[PENDING_EVENTS_FIELD] ?? []).length > 0) known.add(String(doc._id));
      const taken = await this.take(model, docs as FoundDoc[], cutoff);
      found.items.push(...taken.items);
      found.younger.push(...taken.younger.map((id) => `${name}:${id}`));
    }
    return found;
  }

  /**
   * In collections with a repair (a count a dead writer never raised), only events older than
   * REPAIR_GRACE_MS: a live writer whose count is merely slow must not be counted twice.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private cutoff(model: Model<any>, olderThan: Date): Date {
    return leftoverRepairs.has(model.collection)
      ? new Date(Math.min(olderThan.getTime(), Date.now() - REPAIR_GRACE_MS))
      : olderThan;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private projection(model: Model<any>) {
    const repair = leftoverRepairs.has(model.collection);
    return {
      projection: {
        [PENDING_EVENTS_FIELD]: 1,
        ...(repair ? { merchant_id: 1, created_at: 1 } : {}),
      },
    };
  }

  /**
   * The events of `docs` queued before `cutoff`, after repairing (counting) the documents that
   * have some; documents with only younger events are named apart.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private async take(model: Model<any>, docs: FoundDoc[], cutoff: Date) {
    const items: PendingEvent[] = [];
    const younger: string[] = [];
    const ripe: FoundDoc[] = [];
    for (const doc of docs) {
      const stored = doc[PENDING_EVENTS_FIELD] ?? [];
      const old = stored.filter((item) => item.queued_at < cutoff);
      if (old.length < stored.length) younger.push(String(doc._id));
      if (old.length === 0) continue;
      ripe.push(doc);
      for (const item of old) items.push(foundItem(model.collection, String(doc._id), item));
    }
    const repair = leftoverRepairs.get(model.collection);
    if (repair && ripe.length > 0)
      await repair(
        ripe.map((doc) => ({
          _id: String(doc._id),
          merchant_id: String(doc.merchant_id),
          created_at: doc.created_at as Date,
        })),
      );
    return { items, younger };
  }
}
