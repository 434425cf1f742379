/**
 * A durable JetStream consumer with explicit acks, bounded concurrency and order by key. Success acks;
 * a retryable failure naks with a growing delay; an undecodable message or a non-retryable
 * AppError is terminated (poison) and logged, so it cannot block the stream.
 */
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { HEADERS, eventEnvelopeSchema, partitionSubjects, partitionToken } from '@aff/contracts';
import type { EventEnvelope, EventType } from '@aff/contracts';
import { isAppError } from '@aff/api';
import { lazyChild, type Logger } from '@aff/logging';
import { extractTraceContext } from './trace-context';
import { decodeJson } from './json';
import { KeyedLanes } from './keyed-lanes';

export interface ConsumerOptions {
  stream: string;
  durable: string;
  filterSubjects: string[];
  /** Handlers running at once in this process. */
  concurrency?: number;
  /**
   * Events with the same key are handled one after another, in delivery order; events with
   * different keys run concurrently. Default: every event is its own key (no order at all).
   * This orders events inside one process only; order across replicas comes from partitioned
   * subjects with `maxAckPending: 1` (see docs/ordering.md).
   */
  orderingKey?: (event: EventEnvelope) => string;
  /**
   * Messages this durable may have delivered and unacknowledged, across every replica.
   * 1 makes the durable strictly sequential cluster-wide. Default: concurrency × 4.
   */
  maxAckPending?: number;
  /** Milliseconds before an unacked message is redelivered. */
  ackWaitMs?: number;
  /**
   * The subject spans are named by, when messages' own subjects carry a key (one span name per
   * key would make traces impossible to group): e.g. `intake.tracking.visit.*`.
   */
  spanSubject?: string;
  handle: (event: EventEnvelope, log: Logger, delivery: Delivery) => Promise<void>;
  log: Logger;
  /**
   * Asked before a message is decoded, with its merchant from the publisher's header: true acks
   * it unread, for a consumer that knows it has nothing to do for that merchant (the webhook
   * fan-out, for merchants without endpoints). A message without the header is never skipped.
   */
  skipMerchant?: (merchantId: string) => boolean;
}

/** How often this message has been delivered (1 the first time), for handlers that give up. */
export interface Delivery {
  count: number;
  /** The request that caused the message, from its headers (for events it leads to). */
  requestId?: string;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const tracer = trace.getTracer('@aff/messaging');
const MAX_NAK_DELAY_MS = 60_000;
const DEFAULT_CONCURRENCY = 32;
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
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const maxAckPending = opts.maxAckPending ?? concurrency * 4;
  const jsm = await jetstreamManager(nc);
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subjects: opts.filterSubjects,
    ack_wait: (opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) * 1e6,
    max_ack_pending: maxAckPending,
  };
  const existing = await jsm.consumers.info(opts.stream, opts.durable).catch(() => undefined);
  if (existing) await jsm.consumers.update(opts.stream, opts.durable, config);
  else
    await jsm.consumers.add(opts.stream, config).catch(async (error: unknown) => {
      // Another replica may have created it between our look-up and add.
      if (!(await jsm.consumers.info(opts.stream, opts.durable).catch(() => undefined)))
        throw error;
    });

  const consumer = await jetstream(nc).consumers.get(opts.stream, opts.durable);
  const lanes = new KeyedLanes(concurrency);
  const messages: ConsumerMessages = await consumer.consume({
    max_messages: Math.min(maxAckPending, concurrency * 2),
  });
  const loop = (async () => {
    for await (const msg of messages) {
      const merchantId = opts.skipMerchant && msg.headers?.get(HEADERS.merchantId);
      if (merchantId && opts.skipMerchant!(merchantId)) {
        msg.ack();
        continue;
      }
      const event = decode(msg, opts);
      if (!event) continue;
      const key = opts.orderingKey ? opts.orderingKey(event) : event.id;
      // Waits only for a free slot, so up to `concurrency` handlers run while the loop pulls on.
      await lanes.add(key, () => processOne(msg, event, opts));
    }
  })();
  return {
    async stop() {
      await messages.close();
      await loop.catch(() => undefined);
      await lanes.drained();
    },
  };
}

function decode(msg: JsMsg, opts: ConsumerOptions): EventEnvelope | undefined {
  try {
    return eventEnvelopeSchema.parse(decodeJson(msg.data)) as EventEnvelope;
  } catch (error) {
    opts.log.error({ err: error, subject: msg.subject, seq: msg.seq }, 'poison message terminated');
    msg.term('undecodable event');
    return undefined;
  }
}

async function processOne(msg: JsMsg, event: EventEnvelope, opts: ConsumerOptions): Promise<void> {
  const requestId = msg.headers?.get(HEADERS.requestId) || undefined;
  const log = lazyChild(opts.log, { eventId: event.id, eventType: event.type, requestId });
  const parent = extractTraceContext(msg.headers);
  const span = tracer.startSpan(
    `${opts.spanSubject ?? msg.subject} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': msg.subject,
        ...(opts.spanSubject ? { 'messaging.destination.template': opts.spanSubject } : {}),
        'messaging.consumer.group.name': opts.durable,
        'messaging.message.id': event.id,
      },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), () =>
      opts.handle(event, log, { count: msg.info.deliveryCount, requestId }),
    );
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

export type PartitionedConsumerOptions = Omit<
  ConsumerOptions,
  'durable' | 'filterSubjects' | 'concurrency' | 'maxAckPending' | 'orderingKey'
> & {
  /** Prefix of the durable names; partition N is `<durablePrefix>-pNN`. */
  durablePrefix: string;
  /** The partitioned event type (see @aff/contracts ordering.ts). */
  type: EventType;
};

/**
 * One durable per partition of a partitioned event type, each allowing one unacknowledged
 * message cluster-wide: events of one key are handled one at a time, in stream order, by any
 * number of replicas, while the partitions run side by side.
 */
export async function startPartitionedConsumers(
  nc: NatsConnection,
  opts: PartitionedConsumerOptions,
): Promise<RunningConsumer> {
  const consumers = await Promise.all(
    partitionSubjects(opts.type).map((subject, partition) =>
      startConsumer(nc, {
        ...opts,
        durable: `${opts.durablePrefix}-${partitionToken(partition)}`,
        filterSubjects: [subject],
        concurrency: 1,
        maxAckPending: 1,
      }),
    ),
  );
  return {
    async stop() {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
    },
  };
}
