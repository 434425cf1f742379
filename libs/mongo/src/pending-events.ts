/**
 * Outbox kept inside the aggregate's own document: the event is written in the same single-
 * document write as the state change (no transactions needed), relayed to JetStream, then
 * removed with `$pull` of the exact stored value (FerretDB's `$pull` supports only equality).
 */
import type { Collection, Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, PendingEvent, PendingEventStore } from '@aff/messaging';

export const PENDING_EVENTS_FIELD = 'pending_events';

export interface StoredPendingEvent {
  id: string;
  queued_at: Date;
  event: EventEnvelope;
  context: EventContext;
}

/** The value to `$push` (or insert) into `pending_events`; JSON-clean so equality holds on `$pull`. */
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

export function relayItem(
  collection: Collection,
  documentId: string,
  stored: StoredPendingEvent,
): PendingEvent {
  return {
    event: stored.event,
    context: stored.context,
    markPublished: async () => {
      await collection.updateOne(
        { _id: documentId } as never,
        {
          $pull: { [PENDING_EVENTS_FIELD]: stored },
        } as never,
      );
    },
  };
}

export class MongoPendingEventStore implements PendingEventStore {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly models: Model<any>[]) {}

  async findPending(olderThan: Date, limit: number): Promise<PendingEvent[]> {
    const items: PendingEvent[] = [];
    for (const model of this.models) {
      const docs = await model.collection
        .find(
          { [`${PENDING_EVENTS_FIELD}.queued_at`]: { $lt: olderThan } },
          { projection: { [PENDING_EVENTS_FIELD]: 1 } },
        )
        .limit(limit)
        .toArray();
      for (const doc of docs) {
        const stored = (doc[PENDING_EVENTS_FIELD] ?? []) as StoredPendingEvent[];
        for (const item of stored) {
          if (item.queued_at < olderThan)
            items.push(relayItem(model.collection, String(doc._id), item));
        }
      }
    }
    return items;
  }
}
