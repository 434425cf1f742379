/**
 * Writes the referral of an accepted visit (durable-first intake): insert once, then publish its
 * `referral.created`. Run by the intake consumer for every queued visit, and by a reader that
 * needs a referral still in the queue (a lead, a repeat visit, a processor event naming it).
 * Both may write the same visit: the insert happens once, and the event's id derives from the
 * referral id, so the stream keeps one copy. A write that finds the referral stored makes sure
 * it is counted in the merchant's list (a run that died after its insert never counted it).
 */
import type { EventEnvelope } from '@aff/contracts';
import { internalCallContext, type EventContext } from '@aff/messaging';
import type { AcceptedVisit, ReferralStore } from './ports';
import type { ReferralRecord } from './records';
import type { ReferralWriter } from './referral-writer';

export type PublishEvents = (events: EventEnvelope[], context: EventContext) => Promise<void>;

export class VisitIntake {
  constructor(
    /** The stored referrals themselves (not the intake-aware view of them). */
    private readonly stored: ReferralStore,
    private readonly writer: ReferralWriter,
    private readonly publish: PublishEvents,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Insert first, publish second (as an outbox relay would): whoever learns of the referral
   * from its event finds it written. A crash in between leaves the message unacknowledged; its
   * redelivery finds the referral there and publishes the event again.
   */
  async write(visit: AcceptedVisit): Promise<ReferralRecord> {
    // Stamped when written, not when accepted: the link counts' snapshot relies on a referral
    // landing in the database soon after its `created_at` (see data/link-counts.ts), and a
    // queue that is minutes behind would break that.
    const now = this.now();
    const record: ReferralRecord = { ...visit.record, created_at: now, updated_at: now };
    const inserted = await this.stored.insertIfAbsent(record);
    const found = inserted ? null : await this.stored.findById(record.merchant_id, record._id);
    // Stored by an earlier run that may have died before counting it: the referral list would
    // never show it (its events travel in this message, not in the record, so no outbox sweep
    // finds it). Counted here, once, whoever wrote it.
    if (found) await this.stored.countIfMissed(found);
    const written = found ?? record;
    const ctx = internalCallContext(record.merchant_id, visit.context);
    const events = await this.writer.createdEvents(ctx, written, Boolean(visit.record.flagged));
    await this.publish(events, visit.context);
    return written;
  }
}
