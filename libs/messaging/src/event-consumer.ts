/**
 * A durable JetStream consumer with explicit acks and bounded concurrency. Success acks;
 * a retryable failure naks with a growing delay; an undecodable message or a non-retryable
 * AppError is terminated (poison) and logged, so it cannot block the stream.
 */
import fastq from 'fastq';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { HEADERS, eventEnvelopeSchema } from '@aff/contracts';
import type { EventEnvelope } from '@aff/contracts';
import { isAppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { extractTraceContext } from './trace-context';
import { decodeJson } from './json';

export interface ConsumerOptions {
  stream: string;
  durable: string;
  filterSubjects: string[];
  concurrency?: number;
  /** Milliseconds before an unacked message is redelivered. */
  ackWaitMs?: number;
  handle: (event: EventEnvelope, log: Logger) => Promise<void>;
  log: Logger;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const tracer = trace.getTracer('@aff/messaging');
const MAX_NAK_DELAY_MS = 60_000;
/**
 * How long a delivered message may stay unacknowledged before JetStream offers it again. It is
 * also how long events wait after a consumer process dies holding them, so it is kept short;
 * handlers take milliseconds, and a rare duplicate is absorbed by idempotent handlers.
 */
const DEFAULT_ACK_WAIT_MS = 10_000;

export function retryDelayMs(deliveryCount: number): number {
  return Math.min(MAX_NAK_DELAY_MS, 500 * 2 ** Math.max(0, deliveryCount - 1));
}

export async function startConsumer(
  nc: NatsConnection,
  opts: ConsumerOptions,
): Promise<RunningConsumer> {
  const concurrency = opts.concurrency ?? 8;
  const jsm = await jetstreamManager(nc);
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subjects: opts.filterSubjects,
    ack_wait: (opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) * 1e6,
    max_ack_pending: concurrency * 4,
  };
  const existing = await jsm.consumers.info(opts.stream, opts.durable).catch(() => undefined);
  if (existing) await jsm.consumers.update(opts.stream, opts.durable, config);
  else await jsm.consumers.add(opts.stream, config);

  const consumer = await jetstream(nc).consumers.get(opts.stream, opts.durable);
  const queue = fastq.promise((msg: JsMsg) => processOne(msg, opts), concurrency);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency * 2 });
  const loop = (async () => {
    for await (const msg of messages) {
      // Waiting here keeps at most `concurrency` handlers running and the rest unpulled.
      await queue.push(msg);
    }
  })();
  return {
    async stop() {
      await messages.close();
      await loop.catch(() => undefined);
      await queue.drained();
    },
  };
}

async function processOne(msg: JsMsg, opts: ConsumerOptions): Promise<void> {
  let event: EventEnvelope;
  try {
    event = eventEnvelopeSchema.parse(decodeJson(msg.data)) as EventEnvelope;
  } catch (error) {
    opts.log.error({ err: error, subject: msg.subject, seq: msg.seq }, 'poison message terminated');
    msg.term('undecodable event');
    return;
  }
  const log = opts.log.child({
    eventId: event.id,
    eventType: event.type,
    requestId: msg.headers?.get(HEADERS.requestId) || undefined,
  });
  const parent = extractTraceContext(msg.headers);
  const span = tracer.startSpan(
    `${msg.subject} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': msg.subject,
        'messaging.consumer.group.name': opts.durable,
        'messaging.message.id': event.id,
      },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), () => opts.handle(event, log));
    msg.ack();
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    if (isAppError(error) && !error.retryable) {
      log.error({ err: error }, 'event rejected permanently; terminated');
      msg.term(error.message);
    } else {
      const delay = retryDelayMs(msg.info.deliveryCount);
      log.warn({ err: error, delay }, 'event handling failed; will retry');
      msg.nak(delay);
    }
  } finally {
    span.end();
  }
}
