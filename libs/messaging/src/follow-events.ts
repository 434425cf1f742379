/**
 * Keeps an in-memory read model current from domain events on plain NATS subscriptions. Every
 * replica sees every event this way (a durable consumer hands each event to one replica only);
 * plain subscriptions miss what is published while disconnected, so `reload` runs after each
 * reconnect.
 */
import { checkEventData, eventSubject, isEventType } from '@aff/contracts';
import type { EventEnvelope, EventMap, EventType } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { decodeJson } from './json';

export interface FollowOptions {
  subjects: string[];
  apply: (event: EventEnvelope) => void;
  reload: () => Promise<void>;
  log: Logger;
}

export function followEvents(nc: NatsConnection, opts: FollowOptions): Subscription[] {
  const subscriptions = opts.subjects.map((subject) =>
    nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          opts.apply(decodeJson(msg.data) as EventEnvelope);
        } catch (err) {
          opts.log.warn({ err, subject }, 'event not applied to an in-memory read model');
        }
      },
    }),
  );
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'reconnect')
        await opts
          .reload()
          .catch((err: unknown) => opts.log.warn({ err }, 'in-memory read model reload failed'));
    }
  })();
  return subscriptions;
}

/** Appliers per event type for an in-memory read model; each gets its type's data, checked. */
export type FollowTable = {
  [T in EventType]?: (data: EventMap[T], event: EventEnvelope<EventMap[T]>) => void;
};

/**
 * `followEvents` over a table of typed appliers: the subjects are the table's types, and an
 * event whose data does not match its type's schema is logged and skipped.
 */
export function followEventTable(
  nc: NatsConnection,
  opts: { on: FollowTable; reload: () => Promise<void>; log: Logger },
): Subscription[] {
  const types = Object.keys(opts.on).filter(isEventType);
  return followEvents(nc, {
    subjects: types.map(eventSubject),
    apply: (event) => {
      if (!isEventType(event.type)) return;
      const apply = opts.on[event.type] as
        ((data: unknown, event: EventEnvelope) => void) | undefined;
      if (!apply) return;
      const checked = checkEventData(event.type, event.data);
      if (!checked.ok) {
        opts.log.warn({ eventId: event.id, reason: checked.reason }, 'malformed event not applied');
        return;
      }
      apply(checked.data, event);
    },
    reload: opts.reload,
    log: opts.log,
  });
}
