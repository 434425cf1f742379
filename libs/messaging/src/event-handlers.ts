/**
 * Typed handlers per event type, in place of one handler that switches on `event.type` and
 * casts `event.data`. The table's keys give the consumer's subjects (`evt.<type>`); each event
 * is checked against its type's schema (@aff/contracts `EVENT_SCHEMAS`) before its handler
 * runs, so a handler receives typed data and a malformed event is terminated as poison (with
 * the reason in the log) instead of being half-applied.
 *
 *   startConsumer(nc, { stream, durable, log, ...eventHandlers({
 *     'charge.attributed': (data, ctx) => charges.onAttributed(..., data),
 *   }) });
 */
import { checkEventData, eventSubject, isEventType } from '@aff/contracts';
import type { EventEnvelope, EventMap, EventType } from '@aff/contracts';
import { AppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import type { Delivery } from './event-consumer';

export interface EventHandlerContext<T extends EventType = EventType> {
  /** The whole envelope (id, merchant, time), its `data` typed. */
  event: EventEnvelope<EventMap[T]>;
  log: Logger;
  delivery: Delivery;
}

export type EventHandler<T extends EventType> = (
  data: EventMap[T],
  ctx: EventHandlerContext<T>,
) => Promise<void>;

export type EventHandlerTable = { [T in EventType]?: EventHandler<T> };

/** What orders an event type's events in process: its key, from its typed data. */
export type OrderingKeyTable = { [T in EventType]?: (data: EventMap[T]) => string | undefined };

export interface TypedEventConsumer {
  /** `evt.<type>` of every type in the table. */
  filterSubjects: string[];
  handle: (event: EventEnvelope, log: Logger, delivery: Delivery) => Promise<void>;
  /** Present when keys were given; an event whose key cannot be read is its own key. */
  orderingKey?: (event: EventEnvelope) => string;
}

export function eventHandlers(
  table: EventHandlerTable,
  keys?: OrderingKeyTable,
): TypedEventConsumer {
  const types = Object.keys(table).filter(isEventType);
  return {
    filterSubjects: types.map(eventSubject),
    handle: (event, log, delivery) => dispatch(table, event, log, delivery),
    ...(keys ? { orderingKey: (event: EventEnvelope) => keyOf(keys, event) } : {}),
  };
}

/** Handlers that need only the data and its envelope: the shape `followEventTable` takes too. */
export type EnvelopeHandlerTable = {
  [T in EventType]?: (data: EventMap[T], event: EventEnvelope<EventMap[T]>) => Promise<void>;
};

/**
 * A consumer's handler table from envelope handlers, so one table can feed both a durable
 * consumer and an in-memory follower of the same events.
 */
export function withEnvelope(table: EnvelopeHandlerTable): EventHandlerTable {
  const handlers: Partial<Record<EventType, EventHandler<EventType>>> = {};
  for (const type of Object.keys(table).filter(isEventType)) {
    const apply = table[type] as (data: unknown, event: EventEnvelope) => Promise<void>;
    handlers[type] = (data, { event }) => apply(data, event);
  }
  return handlers as EventHandlerTable;
}

/**
 * Runs before the data is checked (the consumer orders events as it pulls them), so a key
 * function that trips over malformed data leaves the event on its own: its handler rejects it.
 */
function keyOf(keys: OrderingKeyTable, event: EventEnvelope): string {
  const keyFn = isEventType(event.type)
    ? (keys[event.type] as ((data: unknown) => string | undefined) | undefined)
    : undefined;
  try {
    return keyFn?.(event.data) ?? event.id;
  } catch {
    return event.id;
  }
}

/** Runs the handler of `event.type` with checked data; a type without one is ignored. */
export async function dispatch(
  table: EventHandlerTable,
  event: EventEnvelope,
  log: Logger,
  delivery: Delivery,
): Promise<void> {
  const type = event.type;
  if (!isEventType(type)) return;
  const handler = table[type] as EventHandler<EventType> | undefined;
  if (!handler) return;
  const checked = checkEventData(type, event.data);
  if (!checked.ok)
    throw new AppError('unprocessable', `Malformed ${type} event ${event.id}: ${checked.reason}`);
  await handler(checked.data, {
    event: event as EventEnvelope<EventMap[EventType]>,
    log,
    delivery,
  });
}
