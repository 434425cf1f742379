/**
 * Durable-first visit intake over a JetStream work queue (the `VisitQueue` port): a new visit's
 * referral is one message keyed by the referral id. The visit is answered once the stream has
 * it; the intake consumer writes the referral and acknowledges the message, which removes it.
 * So every referral a visitor was told about is in the database or still in this queue.
 */
import { AppError } from '@aff/api';
import {
  VISIT_ACCEPTED,
  VISIT_INTAKE,
  acceptedVisitRecordSchema,
  type EventEnvelope,
} from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  currentEventContext,
  KeyedWorkQueue,
  type EventContext,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { ReferralRecord } from '../domain/records';
import type { AcceptedVisit, VisitQueue } from '../domain/ports';

/**
 * The share of the caller's wait spent trying to store a visit: the rest leaves time for the
 * 503 to travel back through the gateway before its own timeout answers 504 instead.
 */
const SHARE_OF_ANSWER_TIME_FOR_TRIES = 0.6;

export class JetStreamVisitQueue implements VisitQueue {
  private readonly queue: KeyedWorkQueue;

  /**
   * On the stream of `VISIT_INTAKE`, which the kernel makes at start (the tracking service
   * declares it in `workQueues`). `answerWithinMs`: how long the visit's caller waits for an
   * answer (the gateway's RPC timeout). A visit the stream did not take at once is tried again
   * for most of that time, so the answer, stored or 503, still reaches the page (see
   * KeyedWorkQueue.add).
   */
  constructor(nc: NatsConnection, answerWithinMs: number) {
    this.queue = new KeyedWorkQueue(nc, {
      stream: VISIT_INTAKE.stream,
      subjectPrefix: VISIT_INTAKE.subjectPrefix,
      addDeadlineMs: Math.floor(answerWithinMs * SHARE_OF_ANSWER_TIME_FOR_TRIES),
    });
  }

  async submit(record: ReferralRecord, context: EventContext): Promise<void> {
    const message: EventEnvelope<ReferralRecord> = {
      id: record._id,
      type: VISIT_ACCEPTED,
      merchant_id: record.merchant_id,
      occurred_at: record.created_at.toISOString(),
      data: record,
    };
    try {
      await this.queue.add(record._id, message, context.request_id);
    } catch {
      // Not stored after every try (or, rarely, stored with every ack lost): not accepted, and
      // the page's tracker may send the visit again.
      throw new AppError('unavailable', 'Service unavailable: tracking. Try again shortly.');
    }
  }

  async find(merchantId: string, referralId: string): Promise<AcceptedVisit | null> {
    // Any string can arrive as a referral id; only a UUID-like key can be queued.
    if (!KeyedWorkQueue.isKey(referralId)) return null;
    const queued = await this.queue.get(referralId);
    const record = queued && toRecord(queued.message);
    return record?.merchant_id === merchantId ? { record, context: queued!.context } : null;
  }

  drained(timeoutMs: number): Promise<void> {
    return this.queue.drained(timeoutMs);
  }

  /** Writes accepted visits, `concurrency` at a time (their inserts share one `insertMany`). */
  consume(
    write: (visit: AcceptedVisit) => Promise<void>,
    opts: { durable: string; concurrency: number; log: Logger },
  ): Promise<RunningConsumer> {
    return this.queue.consume({
      durable: opts.durable,
      concurrency: opts.concurrency,
      log: opts.log,
      handle: async (message, _log, delivery) => {
        const record = toRecord(message);
        if (!record) throw new AppError('bad_request', `not an accepted visit: ${message.id}`);
        // The handler runs in the visit request's trace (from the message's headers).
        await write({ record, context: currentEventContext(delivery.requestId) });
      },
    });
  }
}

/** The queued referral, checked against its contract; null when the message is not one. */
function toRecord(message: EventEnvelope): ReferralRecord | null {
  if (message.type !== VISIT_ACCEPTED) return null;
  const parsed = acceptedVisitRecordSchema.safeParse(message.data);
  return parsed.success ? parsed.data : null;
}
