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

export interface TypedEventConsumer {
  /** `evt.<type>` of every type in the table. */
  filterSubjects: string[];
  handle: (event: EventEnvelope, log: Logger, delivery: Delivery) => Promise<void>;
}

export function eventHandlers(table: EventHandlerTable): TypedEventConsumer {
  const types = Object.keys(table).filter(isEventType);
  return {
    filterSubjects: types.map(eventSubject),
    handle: (event, log, delivery) => dispatch(table, event, log, delivery),
  };
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
