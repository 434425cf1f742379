/**
 * Durable JetStream consumers of every public domain event (one per stream that carries any):
 * thin — the fan-out use case writes the deliveries, then they are handed to the senders. The
 * event is acked once each delivery has answered or is on the schedule (deliveries-handoff.ts).
 */
import { PUBLIC_EVENT_TYPES, STREAMS, eventSubject } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  currentEventContext,
  startConsumer,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { FanOut } from '../domain/fan-out';
import type { DeliveriesHandoff } from './deliveries-handoff';

export const DURABLE_NAME = 'webhook-fan-out';

/** For each stream, the subjects of the public event types it carries (`evt.<type>`). */
export function publicSubjectsByStream(): { stream: string; subjects: string[] }[] {
  return Object.values(STREAMS)
    .map(({ name, aggregates }) => ({
      stream: name,
      subjects: PUBLIC_EVENT_TYPES.filter((type) =>
        (aggregates as readonly string[]).includes(type.split('.')[0]!),
      ).map(eventSubject),
    }))
    .filter((entry) => entry.subjects.length > 0);
}

export async function startEventConsumers(
  nc: NatsConnection,
  fanOut: FanOut,
  handoff: DeliveriesHandoff,
  log: Logger,
  /** The merchants known to have no enabled endpoint: their events are acked unread. */
  withoutEndpoints?: (merchantId: string) => boolean,
): Promise<RunningConsumer[]> {
  const running: RunningConsumer[] = [];
  for (const { stream, subjects } of publicSubjectsByStream()) {
    running.push(
      await startConsumer(nc, {
        stream,
        durable: DURABLE_NAME,
        filterSubjects: subjects,
        log,
        ...(withoutEndpoints ? { skipMerchant: withoutEndpoints } : {}),
        handle: async (event) => {
          // The consumer span's context: the requests this event causes join its trace.
          const { traceparent, tracestate } = currentEventContext();
          const trace = {
            ...(traceparent ? { traceparent } : {}),
            ...(tracestate ? { tracestate } : {}),
          };
          await handoff.handOver(await fanOut.handle(event, trace));
        },
      }),
    );
  }
  return running;
}
