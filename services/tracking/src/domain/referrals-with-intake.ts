/**
 * The referrals as readers must see them while intake writes them behind the visits: every
 * referral a visitor was told about exists. A look-up by id that misses the database finds the
 * visit in the queue and writes its referral first; a list waits (briefly) for the visits
 * accepted before it to be written. Writes go straight to the store.
 */
import type { Page } from '@aff/api';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { ReferralChange, ReferralFilters, ReferralStore, VisitQueue } from './ports';
import type { ReferralRecord } from './records';
import type { VisitIntake } from './visit-intake';

/** Longest a list waits for the queue; normally it is empty or drains in milliseconds. */
export const LIST_WAITS_FOR_INTAKE_MS = 3_000;

export class ReferralsWithIntake implements ReferralStore {
  constructor(
    private readonly stored: ReferralStore,
    private readonly queue: VisitQueue,
    private readonly intake: VisitIntake,
  ) {}

  async findById(merchantId: string, id: string): Promise<ReferralRecord | null> {
    const found = await this.stored.findById(merchantId, id);
    if (found) return found;
    const accepted = await this.queue.find(merchantId, id);
    if (accepted) return this.intake.write(accepted);
    // Not queued either: it may have been written (and left the queue) between the two looks.
    return this.stored.findById(merchantId, id);
  }

  findByCustomer(merchantId: string, processorCustomerId: string): Promise<ReferralRecord | null> {
    // Queued visits have no customer yet: one is attached only to a referral found by id.
    return this.stored.findByCustomer(merchantId, processorCustomerId);
  }

  async page(
    merchantId: string,
    filters: ReferralFilters,
    skip: number,
    limit: number,
  ): Promise<Page<ReferralRecord>> {
    await this.queue.drained(LIST_WAITS_FOR_INTAKE_MS);
    return this.stored.page(merchantId, filters, skip, limit);
  }

  insertIfAbsent(record: ReferralRecord): Promise<boolean> {
    return this.stored.insertIfAbsent(record);
  }

  countIfMissed(record: ReferralRecord): Promise<void> {
    return this.stored.countIfMissed(record);
  }

  insertWithEvents(
    record: ReferralRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void> {
    return this.stored.insertWithEvents(record, events, context);
  }

  updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<ReferralRecord>,
    events: EventEnvelope[],
    context: EventContext,
    change?: ReferralChange,
  ): Promise<boolean> {
    return this.stored.updateWithEvents(merchantId, id, changes, events, context, change);
  }
}
