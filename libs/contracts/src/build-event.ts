import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from './envelopes';
import type { EventMap, EventType } from './events';

/** A new event envelope; its id is also the stream's de-duplication key. */
export function buildEvent<T extends EventType>(
  type: T,
  merchantId: string,
  data: EventMap[T],
  occurredAt: Date = new Date(),
): EventEnvelope<EventMap[T]> {
  return {
    id: randomUUID(),
    type,
    merchant_id: merchantId,
    occurred_at: occurredAt.toISOString(),
    data,
  };
}
