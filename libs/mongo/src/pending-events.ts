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
import type { EventContext, PendingEvent, PendingEventStore } from '@aff/messaging';

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

/** Collections whose documents may hold pending events; one gauge reports them all. */
const outboxCollections = new Map<string, Collection>();

function observeOutbox(collection: Collection): void {
  if (outboxCollections.size === 0) {
    metrics
      .getMeter('affiliate-platform')
      .createObservableGauge('outbox.backlog', {
        description: 'Documents holding events not yet relayed to JetStream',
        unit: '{document}',
      })
      .addCallback(async (result) => {
        for (const [name, coll] of outboxCollections) {
          const count = await coll
            .countDocuments(
              { [`${PENDING_EVENTS_FIELD}.queued_at`]: { $lt: new Date(Date.now() + 86_400_000) } },
              { maxTimeMS: 1_000 },
            )
            .catch(() => undefined);
          if (count !== undefined) result.observe(count, { 'db.collection.name': name });
        }
      });
  }
  outboxCollections.set(collection.collectionName, collection);
}

export class MongoPendingEventStore implements PendingEventStore {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly models: Model<any>[]) {
    for (const model of models) observeOutbox(model.collection);
  }

  async findPending(olderThan: Date, limit: number): Promise<PendingEvent[]> {
    const items: PendingEvent[] = [];
    for (const model of this.models) {
      const repair = leftoverRepairs.get(model.collection);
      const cutoff = repair
        ? new Date(Math.min(olderThan.getTime(), Date.now() - REPAIR_GRACE_MS))
        : olderThan;
      const docs = await model.collection
        .find(
          { [`${PENDING_EVENTS_FIELD}.queued_at`]: { $lt: cutoff } },
          {
            projection: {
              [PENDING_EVENTS_FIELD]: 1,
              ...(repair ? { merchant_id: 1, created_at: 1 } : {}),
            },
          },
        )
        .limit(limit)
        .toArray();
      if (repair && docs.length > 0)
        await repair(
          docs.map((doc) => ({
            _id: String(doc._id),
            merchant_id: String(doc.merchant_id),
            created_at: doc.created_at as Date,
          })),
        );
      for (const doc of docs) {
        const stored = (doc[PENDING_EVENTS_FIELD] ?? []) as StoredPendingEvent[];
        for (const item of stored) {
          if (item.queued_at < cutoff)
            items.push(relayItem(model.collection, String(doc._id), item));
        }
      }
    }
    return items;
  }
}
