/**
 * Referrals over MongoDB: the `ReferralStore` port. Built on `TenantRepository` (merchant-scoped,
 * inserts batched into one `insertMany`), made with the service's relay: a write's events are
 * stored in the same document write and relayed by it right after the write (an update's, once
 * its count reservation is settled: `relayAfter`), so a crash in between leaves them to the
 * outbox sweep. Duplicate keys become the domain's `DuplicateError`. The unfiltered,
 * newest-first list comes from `NewestList`: the merchant's count document, which each insert
 * batch updates (its count and newest ids).
 */
import type { FilterQuery, UpdateQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, PendingEvent } from '@aff/messaging';
import { mapDuplicate, type HeldWrites, type NewestList, type TenantRepository } from '@aff/mongo';
import {
  DuplicateError,
  type Page,
  type ReferralChange,
  type ReferralFilters,
  type ReferralStore,
} from '../domain/ports';
import { APPLIED_EVENTS_KEPT, customerKey, type ReferralRecord } from '../domain/records';
import type { ReferralDocument } from './referral.schema';
import type { ReferralTallies } from './referral-tallies';
import type { CountMarks } from './referral-tally.schema';

export class ReferralRepository implements ReferralStore {
  constructor(
    /** Made with the service's relay, which publishes the events stored with a write. */
    private readonly repo: TenantRepository<ReferralDocument>,
    private readonly newest: Pick<NewestList<ReferralDocument>, 'page'>,
    private readonly tallies: Pick<ReferralTallies, 'reserve'>,
    private readonly onCountFailed: (error: unknown) => void = () => undefined,
  ) {}

  findById(merchantId: string, id: string): Promise<ReferralRecord | null> {
    return this.repo.findById(merchantId, id);
  }

  findByCustomer(merchantId: string, processorCustomerId: string): Promise<ReferralRecord | null> {
    // Batched with the look-ups of the other partitions' events (one `$in` read per batch).
    return this.repo.findByUnique(merchantId, 'customer_key', customerKey(processorCustomerId));
  }

  async page(
    merchantId: string,
    filters: ReferralFilters,
    skip: number,
    limit: number,
  ): Promise<Page<ReferralRecord>> {
    const filter = toFilter(filters);
    if (Object.keys(filter).length === 0) return this.newest.page(merchantId, skip, limit);
    return this.repo.page(merchantId, filter, skip, limit);
  }

  async insertIfAbsent(record: ReferralRecord): Promise<boolean> {
    try {
      await mapDuplicate(this.repo.insert(record), 'Referral');
    } catch (error) {
      if (error instanceof DuplicateError) return false;
      throw error;
    }
    return true;
  }

  countIfMissed(record: ReferralRecord): Promise<void> {
    return this.repo.countIfMissed(record as ReferralDocument);
  }

  async insertWithEvents(
    record: ReferralRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void> {
    // Listed on every replica once this returns: the insert batch pushed its id to the
    // merchant's newest ids before answering.
    await mapDuplicate(this.repo.insert(record, events, context), 'Referral');
  }

  async updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<ReferralRecord>,
    events: EventEnvelope[],
    context: EventContext,
    change: ReferralChange = {},
  ): Promise<boolean> {
    // The write's counts are reserved first and its steps carry the reservation's marks, so
    // they are counted once whether or not this process lives to settle them.
    const reservation = change.counts ? await this.tallies.reserve([change.counts]) : null;
    const marks = reservation && change.counts ? reservation.marks(change.counts.delta) : {};
    const update: UpdateQuery<ReferralDocument> = { $set: { ...changes, ...markFields(marks) } };
    if (change.addVisits) update.$inc = { visits: change.addVisits };
    const condition = { ...change.expected } as FilterQuery<ReferralDocument>;
    if (change.applies) {
      // Applied once: listed in the same write, and only while not listed yet.
      condition.applied_events = { $ne: change.applies };
      update.$push = {
        applied_events: { $each: [change.applies], $slice: -APPLIED_EVENTS_KEPT },
      };
    }
    // A write that throws may still have landed: its reservation is left to the sweep, which
    // reads from the marks whether it did. The write's events go out once it is settled.
    const pending = await this.repo.relayAfter(
      (held) => this.write(held, merchantId, id, condition, update, events, context, changes),
      async (written) => {
        await reservation?.settle(() => written !== null).catch(this.onCountFailed);
      },
    );
    return pending !== null;
  }

  private async write(
    repo: HeldWrites<ReferralDocument>,
    merchantId: string,
    id: string,
    condition: FilterQuery<ReferralDocument>,
    update: UpdateQuery<ReferralDocument>,
    events: EventEnvelope[],
    context: EventContext,
    changes: Partial<ReferralRecord>,
  ): Promise<PendingEvent[] | null> {
    if ('customer_key' in changes) {
      // A unique field: its duplicate key means "another referral has this customer".
      const result = await mapDuplicate(
        repo.updateIf(merchantId, id, condition, update, events, context),
        'Referral',
      );
      return result ? result.pending : null;
    }
    // Referrals are never deleted and nothing else here is unique, so the batched
    // conditional write applies (TenantRepository.applyIf): one command per batch.
    return repo.applyIf(merchantId, id, condition, update, events, context);
  }

  /** The `count_marks` of some referrals (the tallies' sweep settles by them). */
  async marksOf(merchantId: string, ids: string[]): Promise<Map<string, CountMarks>> {
    const docs = await this.repo.find<Pick<ReferralDocument, '_id' | 'count_marks'>>(
      merchantId,
      { _id: { $in: ids } },
      { projection: { count_marks: 1 } },
    );
    return new Map(docs.map((doc) => [doc._id, doc.count_marks ?? {}]));
  }
}

/** Marks as `$set` fields: other steps' marks of the referral stay as they are. */
function markFields(marks: CountMarks): Record<string, string> {
  return Object.fromEntries(Object.entries(marks).map(([step, id]) => [`count_marks.${step}`, id]));
}

function toFilter(filters: ReferralFilters): FilterQuery<ReferralDocument> {
  const filter: FilterQuery<ReferralDocument> = {};
  if (filters.affiliate_id) filter.affiliate_id = filters.affiliate_id;
  if (filters.conversion_states?.length)
    filter.conversion_state = { $in: filters.conversion_states };
  if (filters.email) filter.email = filters.email;
  if (filters.processor_customer_id)
    filter.customer_key = customerKey(filters.processor_customer_id);
  // Referrals stored before fraud checks have no `flagged`: they count as not flagged.
  if (filters.flagged !== undefined) filter.flagged = filters.flagged ? true : { $ne: true };
  if (filters.review_state) filter.review_state = filters.review_state;
  const { updated_since: since, updated_until: until } = filters;
  if (since || until) {
    filter.updated_at = { ...(since ? { $gt: since } : {}), ...(until ? { $lt: until } : {}) };
  }
  return filter;
}
