/**
 * Order by key across replicas. Events whose effects depend on the order of others with the
 * same key (a processor customer's customer, charge and refund events) are published on one of
 * a fixed number of partition subjects, chosen by a hash of the key. Each partition has its own
 * durable consumer that allows one unacknowledged message at a time, so within a partition one
 * event is handled at a time by whichever replica holds it, in stream order, and different
 * partitions run concurrently. See docs/ordering.md.
 */
import type { EventEnvelope } from './envelopes';
import type { EventMap, EventType } from './events';
import { eventSubject } from './events';

/**
 * Append-only in spirit: changing it re-routes keys while old messages are still queued (drain
 * the processor events before a deploy that changes it). A partition handles one event at a time,
 * so a backlog drains at most `partitions / latency of one event` per second; 64 was tried and
 * measured worse on 2 cores (more idle pull consumers: hook → commission p99 668 against 383 ms).
 */
export const ORDERING_PARTITIONS = 16;

type KeyOf<T extends EventType> = (data: EventMap[T]) => string | undefined;

/** The event types published on partition subjects, with the key each is ordered by. */
const PARTITION_KEYS: { [T in EventType]?: KeyOf<T> } = {
  'processor.received': ({ event }) => {
    const object = event.data.object;
    const customer = event.type.startsWith('customer.') ? object.id : object.customer;
    return typeof customer === 'string' && customer ? `customer:${customer}` : undefined;
  },
};

/** FNV-1a: stable across processes and versions, which a partition choice must be. */
export function partitionOf(key: string, partitions = ORDERING_PARTITIONS): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

export function partitionToken(partition: number): string {
  return `p${String(partition).padStart(2, '0')}`;
}

export function isPartitioned(type: string): boolean {
  return type in PARTITION_KEYS;
}

/** The key an event is ordered by; events without one go to a partition by their own id. */
export function orderingKeyOf(event: EventEnvelope): string {
  const keyOf = PARTITION_KEYS[event.type as EventType] as KeyOf<EventType> | undefined;
  return keyOf?.(event.data as never) ?? `event:${event.id}`;
}

/** Where an event is published: `evt.<type>`, plus `.pNN` for partitioned types. */
export function publishSubject(event: EventEnvelope): string {
  const base = eventSubject(event.type);
  if (!isPartitioned(event.type)) return base;
  return `${base}.${partitionToken(partitionOf(orderingKeyOf(event)))}`;
}

/** The filter subject of each partition of a partitioned type, in partition order. */
export function partitionSubjects(type: EventType): string[] {
  return Array.from(
    { length: ORDERING_PARTITIONS },
    (_, p) => `${eventSubject(type)}.${partitionToken(p)}`,
  );
}
