/** Affiliates over MongoDB: the `AffiliateStore` port (see outbox-repository.ts for writes). */
import type { FilterQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { TenantRecord, TenantRepository } from '@aff/mongo';
import type { AffiliateFilters, AffiliateStore, Page } from '../domain/ports';
import type { AffiliateRecord } from '../domain/records';
import type { AffiliateDocument } from './affiliate.schema';
import type { AffiliateStateCounts } from './affiliate-state-counts';
import { OutboxRepository } from './outbox-repository';

export class AffiliateRepository
  extends OutboxRepository<AffiliateRecord>
  implements AffiliateStore
{
  /** `states`: the merchant's count by state, kept right after each write that changes one. */
  constructor(
    repo: TenantRepository<AffiliateRecord & TenantRecord>,
    private readonly states?: AffiliateStateCounts,
  ) {
    super(repo);
  }

  override async insertWithEvents(
    record: AffiliateRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<AffiliateRecord> {
    const inserted = await super.insertWithEvents(record, events, context);
    await this.states?.moved(record.merchant_id, null, record.state);
    return inserted;
  }

  /**
   * A change of `state` must be conditional on the state it replaces (`expected.state`), so the
   * count moves exactly one affiliate from that state to the new one; without it the count
   * could not know what it left.
   */
  override async updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<AffiliateRecord>,
    events: EventEnvelope[],
    context: EventContext,
    expected: Partial<AffiliateRecord> = {},
  ): Promise<AffiliateRecord | null> {
    const from = expected.state;
    if (changes.state && !from) throw new Error('a state change must expect the state it replaces');
    const updated = await super.updateWithEvents(
      merchantId,
      id,
      changes,
      events,
      context,
      expected,
    );
    if (updated && changes.state && from) await this.states?.moved(merchantId, from, changes.state);
    return updated;
  }

  findByIdBatched(merchantId: string, id: string): Promise<AffiliateRecord | null> {
    return this.repo.findByUnique(merchantId, '_id', id);
  }

  findByIds(merchantId: string, ids: string[]): Promise<AffiliateRecord[]> {
    return this.repo.findMany(merchantId, { _id: { $in: ids } });
  }

  findByEmail(merchantId: string, email: string, exceptId?: string) {
    return this.repo.findOne(merchantId, exceptId ? { email, _id: { $ne: exceptId } } : { email });
  }

  findByProcessorCustomer(merchantId: string, customerId: string) {
    return this.repo.findOne(merchantId, { processor_customer_id: customerId });
  }

  page(
    merchantId: string,
    filters: AffiliateFilters,
    skip: number,
    limit: number,
  ): Promise<Page<AffiliateRecord>> {
    const query: FilterQuery<AffiliateDocument> = {};
    if (filters.campaign_id) query.campaign_id = filters.campaign_id;
    if (filters.email) query.email = filters.email;
    if (filters.processor_customer_id) query.processor_customer_id = filters.processor_customer_id;
    if (filters.state) query.state = filters.state;
    if (filters.name) {
      // Escaped: the text is matched literally, never as a pattern the client wrote.
      const part = new RegExp(filters.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
      query.$or = [{ first_name: part }, { last_name: part }];
    }
    return this.repo.page(merchantId, query, skip, limit);
  }

  async countSignIn(merchantId: string, id: string): Promise<void> {
    await this.repo.update(merchantId, id, { $inc: { sign_in_count: 1 } });
  }
}
