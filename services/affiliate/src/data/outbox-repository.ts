/**
 * The base of this service's repositories: a `TenantRepository` (merchant-scoped reads and
 * writes, batched inserts, the events a write queued handed to the relay right after it) whose
 * MongoDB duplicate-key errors become the domain's `DuplicateError`. Events are stored in the
 * same document write, so a crash before the relay leaves them to the outbox sweep.
 */
import type { FilterQuery, UpdateQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import { mapDuplicate, type TenantRepository, type TenantRecord } from '@aff/mongo';
import type { CountRow, OutboxStore } from '../domain/ports';

/** What a unique-key collision of this service's writes is reported as. */
export const UNIQUE_KEY_TAKEN = 'A record with the same unique key';

export class OutboxRepository<
  R extends { _id: string; merchant_id: string; created_at: Date },
> implements OutboxStore<R> {
  protected readonly repo: TenantRepository<R & TenantRecord>;

  /** `repo`: made with the service's relay, which it hands each write's events. */
  constructor(repo: TenantRepository<R & TenantRecord>) {
    this.repo = repo;
  }

  findById(merchantId: string, id: string): Promise<R | null> {
    return this.repo.findById(merchantId, id);
  }

  async insertWithEvents(record: R, events: EventEnvelope[], context: EventContext): Promise<R> {
    const result = await mapDuplicate(
      this.repo.insert(record as Omit<R & TenantRecord, 'pending_events'>, events, context),
      UNIQUE_KEY_TAKEN,
    );
    return result.record;
  }

  async updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<R>,
    events: EventEnvelope[],
    context: EventContext,
    expected: Partial<R> = {},
  ): Promise<R | null> {
    return this.applyWithEvents(
      merchantId,
      id,
      { $set: changes } as UpdateQuery<R & TenantRecord>,
      events,
      context,
      expected as FilterQuery<R & TenantRecord>,
    );
  }

  /**
   * Raises counters of several records to tracking's absolute counts (`$max`, no event): the
   * counters of links, affiliates and coupons are written by their own repositories.
   */
  async raiseCounts(merchantId: string, rows: CountRow[]): Promise<void> {
    await this.repo.raise(
      merchantId,
      rows.map(({ id, ...values }) => ({ id, values })),
    );
  }

  /** For a repository's own updates (e.g. `$inc`), relayed like the others. */
  protected async applyWithEvents(
    merchantId: string,
    id: string,
    update: UpdateQuery<R & TenantRecord>,
    events: EventEnvelope[],
    context: EventContext,
    condition: FilterQuery<R & TenantRecord> = {},
  ): Promise<R | null> {
    const result = await mapDuplicate(
      this.repo.updateIf(merchantId, id, condition, update, events, context),
      UNIQUE_KEY_TAKEN,
    );
    return result?.record ?? null;
  }
}
