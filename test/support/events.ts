/** Reads domain events back from JetStream, to check what a request published. */
import { connect } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { EventEnvelope } from '@aff/contracts';

export interface SeenEvent {
  subject: string;
  msgId: string | undefined;
  traceparent: string | undefined;
  event: EventEnvelope<any>;
}

/** All events of `stream` on `subject` that match `predicate`, waiting up to `timeoutMs` for the first. */
export async function findEvents(
  stream: string,
  subject: string,
  predicate: (event: EventEnvelope<any>) => boolean,
  timeoutMs = 5000,
): Promise<SeenEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await readEvents(stream, subject, predicate);
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The matching events stored right now, in stream order (no waiting). */
export async function readEvents(
  stream: string,
  subject: string,
  predicate: (event: EventEnvelope<any>) => boolean,
  natsUrl = process.env.NATS_URL,
): Promise<SeenEvent[]> {
  const nc = await connect({ servers: natsUrl });
  try {
    return await scan(nc, stream, subject, predicate);
  } finally {
    await nc.close();
  }
}

async function scan(
  nc: Awaited<ReturnType<typeof connect>>,
  stream: string,
  subject: string,
  predicate: (event: EventEnvelope<any>) => boolean,
): Promise<SeenEvent[]> {
  const consumer = await jetstream(nc).consumers.get(stream, {
    filter_subjects: [subject],
    deliver_policy: DeliverPolicy.All,
  });
  const found: SeenEvent[] = [];
  for (;;) {
    const pending = (await consumer.info(true)).num_pending;
    if (pending === 0) break;
    const batch = await consumer.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
    let got = 0;
    for await (const msg of batch) {
      got++;
      // Poison messages some tests publish on purpose are not events: skip them.
      const event = parseEvent(msg);
      if (event && predicate(event)) {
        found.push({
          subject: msg.subject,
          msgId: msg.headers?.get('Nats-Msg-Id'),
          traceparent: msg.headers?.get('traceparent'),
          event,
        });
      }
    }
    if (got === 0) break;
  }
  await consumer.delete().catch(() => undefined);
  return found;
}

function parseEvent(msg: { json<T>(): T }): EventEnvelope<any> | undefined {
  try {
    return msg.json<EventEnvelope<any>>();
  } catch {
    return undefined;
  }
}
