/**
 * A JetStream work queue of keyed messages: each message is stored on `<prefix>.<key>` and leaves
 * the stream when its consumer acknowledges it. Keyed subjects let a reader fetch one message by
 * its key while it waits (`get`), and the stream's state tells whether everything added before a
 * moment has been handled (`drained`). Used for durable-first intake: a request is answered once
 * its message is stored, and a consumer does the work in batches behind it.
 */
import { SpanKind, context as otelContext, trace } from '@opentelemetry/api';
import {
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { headers as createHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { HEADERS, eventEnvelopeSchema, type EventEnvelope } from '@aff/contracts';
import type { EventContext } from './event-publisher';
import { startConsumer, type ConsumerOptions, type RunningConsumer } from './event-consumer';
import { decodeJson, encodeJson } from './json';
import {
  DUPLICATE_WINDOW_NS,
  MAX_AGE_NS,
  SINGLE_SERVER,
  checkPlacement,
  reconcileStream,
  type StreamPlacement,
} from './streams';
import { injectTraceContext } from './trace-context';

export interface KeyedWorkQueueOptions {
  stream: string;
  /** Messages are stored on `<subjectPrefix>.<key>`. */
  subjectPrefix: string;
  /**
   * How long `add` keeps trying before it gives up (default 3 s). Keep it under the time the
   * caller's own caller waits (the gateway's RPC timeout, 5 s), so the answer is still heard.
   */
  addDeadlineMs?: number;
  /**
   * How many adds may wait to try again at once (default 16); more fail at their first failure.
   * Bounds the request slots a stream outage can hold (tracking serves 64 requests at a time).
   */
  maxRetryingAdds?: number;
}

export interface QueuedMessage {
  message: EventEnvelope;
  /** The trace and request id the message was added with. */
  context: EventContext;
}

/** A key must be one subject token: no dots, no wildcards, nothing a subject cannot hold. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/;
/** How often `drained` looks at the stream again. */
const DRAIN_POLL_MS = 20;
const DEFAULT_ADD_DEADLINE_MS = 3_000;
/** One publish's wait for the stream's ack; a lost ack is then asked for again. */
const ADD_ATTEMPT_TIMEOUT_MS = 1_000;
/** Pauses between attempts, the last one repeated: a leader election takes a few seconds. */
const ADD_RETRY_PAUSES_MS = [100, 250, 500];
const DEFAULT_MAX_RETRYING_ADDS = 16;

const tracer = trace.getTracer('@aff/messaging');

/** What makes a queue's stream: its name and its subjects' prefix. */
export type WorkQueueStream = Pick<KeyedWorkQueueOptions, 'stream' | 'subjectPrefix'>;

export class KeyedWorkQueue {
  /** Adds waiting to try their publish again (see `publishUntilStored`). */
  private retryingAdds = 0;
  private readonly js: JetStreamClient;
  /** Made on first use, so making the queue sends nothing (see `ensureStream`). */
  private jsm?: Promise<JetStreamManager>;

  /** A queue on a stream that `ensureStream` made; sends nothing until used. */
  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: KeyedWorkQueueOptions,
  ) {
    this.js = jetstream(nc);
  }

  /**
   * Creates the queue's stream if this is the first process to need it (or brings it to
   * `placement`'s replica count). A service's kernel does it at start for the queues its
   * definition declares.
   */
  static async ensureStream(
    nc: NatsConnection,
    queue: WorkQueueStream,
    placement: StreamPlacement = SINGLE_SERVER,
  ): Promise<void> {
    checkPlacement(nc, placement);
    const jsm = await jetstreamManager(nc);
    await reconcileStream(jsm, {
      name: queue.stream,
      subjects: [`${queue.subjectPrefix}.>`],
      // A message leaves the stream once its consumer acknowledges it.
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: DUPLICATE_WINDOW_NS,
      max_age: MAX_AGE_NS,
      num_replicas: placement.replicas,
    });
  }

  /** `ensureStream`, then the queue. */
  static async open(
    nc: NatsConnection,
    opts: KeyedWorkQueueOptions,
    placement: StreamPlacement = SINGLE_SERVER,
  ): Promise<KeyedWorkQueue> {
    await KeyedWorkQueue.ensureStream(nc, opts, placement);
    return new KeyedWorkQueue(nc, opts);
  }

  private manager(): Promise<JetStreamManager> {
    this.jsm ??= jetstreamManager(this.nc).catch((error: unknown) => {
      this.jsm = undefined; // asked again on the next use
      throw error;
    });
    return this.jsm;
  }

  static isKey(key: string): boolean {
    return KEY.test(key);
  }

  /**
   * Stores the message under `key`; resolves once the stream has it, trying again (with the same
   * key) when a publish fails, until the queue's `addDeadlineMs`. Adding a key twice within the
   * duplicate window (ten minutes) stores it once.
   */
  async add(key: string, message: EventEnvelope, requestId?: string): Promise<void> {
    if (!KEY.test(key)) throw new Error(`not a work-queue key: ${key}`);
    const subject = this.subjectOf(key);
    const span = tracer.startSpan(`${this.template} publish`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.destination.template': this.template,
        'messaging.message.id': message.id,
      },
    });
    try {
      const hdrs = injectTraceContext(createHeaders(), trace.setSpan(otelContext.active(), span));
      if (requestId) hdrs.set(HEADERS.requestId, requestId);
      await this.publishUntilStored(subject, encodeJson(message), key, hdrs);
    } finally {
      span.end();
    }
  }

  /**
   * A publish that failed may still have been stored: only its ack was lost (a timeout, a
   * connection dropped, a stream leader that changed). Publishing again under the same message
   * id is safe, because the stream keeps one copy per id within its duplicate window. So this
   * tries again until the deadline, and a failure then means the stream may not have it.
   */
  private async publishUntilStored(
    subject: string,
    payload: Uint8Array,
    key: string,
    hdrs: MsgHdrs,
  ): Promise<void> {
    const deadline = Date.now() + (this.opts.addDeadlineMs ?? DEFAULT_ADD_DEADLINE_MS);
    let retrying = false;
    try {
      for (let attempt = 0; ; attempt++) {
        const timeout = Math.min(ADD_ATTEMPT_TIMEOUT_MS, Math.max(deadline - Date.now(), 1));
        try {
          await this.js.publish(subject, payload, { msgID: key, headers: hdrs, timeout });
          return;
        } catch (error) {
          const pause = ADD_RETRY_PAUSES_MS[Math.min(attempt, ADD_RETRY_PAUSES_MS.length - 1)];
          if (Date.now() + pause >= deadline) throw error;
          if (!retrying) {
            // Each add waiting here holds its caller (a request slot of the service) for
            // seconds; past the bound, the rest fail at once and the slots stay free.
            if (this.retryingAdds >= (this.opts.maxRetryingAdds ?? DEFAULT_MAX_RETRYING_ADDS))
              throw error;
            this.retryingAdds += 1;
            retrying = true;
          }
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    } finally {
      if (retrying) this.retryingAdds -= 1;
    }
  }

  /** The message stored under `key` and not yet acknowledged, if any. */
  async get(key: string): Promise<QueuedMessage | null> {
    if (!KEY.test(key)) return null;
    const stored = await (
      await this.manager()
    ).streams.getMessage(this.opts.stream, {
      last_by_subj: this.subjectOf(key),
    });
    if (!stored) return null;
    const parsed = eventEnvelopeSchema.safeParse(decodeJson(stored.data));
    if (!parsed.success) return null;
    const header = (name: string) => stored.header?.get(name) || undefined;
    return {
      message: parsed.data as EventEnvelope,
      context: {
        traceparent: header(HEADERS.traceparent),
        tracestate: header(HEADERS.tracestate),
        request_id: header(HEADERS.requestId),
      },
    };
  }

  /**
   * Resolves once every message added before the call has been acknowledged, or after
   * `timeoutMs`, or at once when the broker cannot say.
   */
  async drained(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    try {
      let state = (await (await this.manager()).streams.info(this.opts.stream)).state;
      const upTo = state.last_seq;
      // Work-queue retention: the first sequence still stored is the oldest one not yet acked.
      while (state.messages > 0 && state.first_seq <= upTo && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
        state = (await (await this.manager()).streams.info(this.opts.stream)).state;
      }
    } catch {
      // The broker is away: the caller goes on with what is done.
    }
  }

  /** The durable consumer that does the work; a message is acknowledged once handled. */
  consume(
    opts: Omit<ConsumerOptions, 'stream' | 'filterSubjects' | 'orderingKey' | 'spanSubject'>,
  ): Promise<RunningConsumer> {
    return startConsumer(this.nc, {
      ...opts,
      spanSubject: this.template,
      stream: this.opts.stream,
      filterSubjects: [`${this.opts.subjectPrefix}.>`],
    });
  }

  /** Spans are named by this, not by each key's subject. */
  private get template(): string {
    return `${this.opts.subjectPrefix}.*`;
  }

  private subjectOf(key: string): string {
    return `${this.opts.subjectPrefix}.${key}`;
  }
}
