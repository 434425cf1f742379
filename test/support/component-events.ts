/**
 * Publishing to and reading from a component's own NATS server: publish events as their
 * producer would, wait until a durable consumer has handled them, read back what was published.
 */
import type { NatsConnection } from '@aff/messaging';
import { jetstreamManager } from '@nats-io/jetstream';
import { eventSubject, type EventEnvelope } from '@aff/contracts';
import { EventPublisher } from '@aff/messaging';
import { readEvents } from './events';
import { eventually } from './processor';

/** Publishes `events` on `stream` and waits until `durable` has acknowledged all of them. */
export async function publishHandled(
  nc: NatsConnection,
  stream: string,
  durable: string,
  events: EventEnvelope[],
): Promise<void> {
  const publisher = new EventPublisher(nc);
  for (const event of events) await publisher.publish(event);
  const jsm = await jetstreamManager(nc);
  let lastSeq = 0;
  for (const subject of new Set(events.map((e) => eventSubject(e.type)))) {
    const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    lastSeq = Math.max(lastSeq, message?.seq ?? 0);
  }
  await eventually(async () => {
    const info = await jsm.consumers.info(stream, durable);
    return info.ack_floor.stream_seq >= lastSeq ? true : undefined;
  });
}

/** Events of `type` about `merchantId` on the component's server, in stream order. */
export async function eventsOf<T = any>(
  natsUrl: string,
  stream: string,
  type: string,
  merchantId: string,
): Promise<EventEnvelope<T>[]> {
  const seen = await readEvents(
    stream,
    eventSubject(type),
    (event) => event.merchant_id === merchantId,
    natsUrl,
  );
  return seen.map((s) => s.event as EventEnvelope<T>);
}

/** Waits until at least `count` events of `type` about `merchantId` were published. */
export function awaitEvents<T = any>(
  natsUrl: string,
  stream: string,
  type: string,
  merchantId: string,
  count = 1,
): Promise<EventEnvelope<T>[]> {
  return eventually(async () => {
    const found = await eventsOf<T>(natsUrl, stream, type, merchantId);
    return found.length >= count ? found : undefined;
  });
}

/** Waits until every durable on `stream` whose name starts with `prefix` has nothing left to do. */
export async function awaitDrained(
  nc: NatsConnection,
  stream: string,
  prefix: string,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await eventually(async () => {
    const infos = await jsm.consumers.list(stream).next();
    const ours = infos.filter((info) => info.name.startsWith(prefix));
    const idle = ours.every((info) => info.num_pending === 0 && info.num_ack_pending === 0);
    return ours.length > 0 && idle ? true : undefined;
  });
}
