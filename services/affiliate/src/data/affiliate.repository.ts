/** Affiliates over MongoDB: the `AffiliateStore` port (see outbox-repository.ts for writes). */
import { randomUUID } from 'node:crypto';
import type { FilterQuery } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import {
  mapDuplicate,
  type HeldWrites,
  type TenantRecord,
  type TenantRepository,
} from '@aff/mongo';
import type { AffiliateFilters, AffiliateStore, CountRow, Page } from '../domain/ports';
import type { AffiliateRecord, StateMove } from '../domain/records';
import type { AffiliateDocument } from './affiliate.schema';
import { moveMayBeUnapplied, type AffiliateStateCounts } from './affiliate-state-counts';
import { OutboxRepository, UNIQUE_KEY_TAKEN } from './outbox-repository';
import type { TopAffiliates } from './top-affiliates';

export class AffiliateRepository
  extends OutboxRepository<AffiliateRecord>
  implements AffiliateStore
{
  /**
   * `states`: the merchant's count by state, moved exactly once by each write of a state.
   * `top`: the merchant's kept top affiliates, merged after each batch of raised counters.
   */
  constructor(
    repo: TenantRepository<AffiliateRecord & TenantRecord>,
    private readonly states?: AffiliateStateCounts,
    private readonly top?: TopAffiliates,
  ) {
    super(repo);
  }

  /**
   * The counters first, then the top list from what they now hold: when the list's write fails
   * (or the process dies before it), the caller's message is not acknowledged, and its repeat
   * raises nothing and merges what this one could not.
   */
  override async raiseCounts(merchantId: string, rows: CountRow[]): Promise<void> {
    await super.raiseCounts(merchantId, rows);
    await this.top?.raised(merchantId, rows);
  }

  override async insertWithEvents(
    record: AffiliateRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<AffiliateRecord> {
    const move = moveOf(events, null, record.state, record.created_at);
    const inserted = await this.countedThenRelayed(record.merchant_id, move, (held) =>
      mapDuplicate(
        held.insert(
          { ...record, state_move: move } as AffiliateRecord & TenantRecord,
          events,
          context,
        ),
        UNIQUE_KEY_TAKEN,
      ).then((result) => result.record),
    );
    return inserted ?? record;
  }

  /**
   * A change of `state` must be conditional on the state it replaces (`expected.state`), so the
   * count moves exactly one affiliate from that state to the new one; without it the count
   * could not know what it left. It is also conditional on the affiliate's last move, which is
   * applied first if its writer died before applying it (so no move is overwritten unapplied).
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
    if (!changes.state || !this.states)
      return super.updateWithEvents(merchantId, id, changes, events, context, expected);
    if (!from) throw new Error('a state change must expect the state it replaces');
    const before = (await this.repo.findById(merchantId, id)) as AffiliateDocument | null;
    if (!before) return null;
    if (before.state_move && moveMayBeUnapplied(before))
      await this.states.apply(merchantId, before.state_move);
    const move = moveOf(events, from, changes.state, new Date());
    const condition = { ...expected, 'state_move.id': before.state_move?.id ?? null };
    return this.countedThenRelayed(merchantId, move, async (held) => {
      const result = await mapDuplicate(
        held.updateIf(
          merchantId,
          id,
          condition as FilterQuery<AffiliateRecord & TenantRecord>,
          { $set: { ...changes, state_move: move } },
          events,
          context,
        ),
        UNIQUE_KEY_TAKEN,
      );
      return result?.record ?? null;
    });
  }

  /**
   * Writes a state with its move, applies the move to the count, then relays the write's
   * events. When the count cannot be moved the write stands and its events stay pending: the
   * outbox sweep applies the move (`AffiliateStateCounts.repairLeftovers`) and relays them.
   */
  private async countedThenRelayed(
    merchantId: string,
    move: StateMove,
    write: (held: HeldWrites<AffiliateRecord & TenantRecord>) => Promise<AffiliateRecord | null>,
  ): Promise<AffiliateRecord | null> {
    const written: { record?: AffiliateRecord | null } = {};
    try {
      return await this.repo.relayAfter(
        async (held) => (written.record = await write(held)),
        async (record) => {
          if (record) await this.states?.apply(merchantId, move);
        },
      );
    } catch (error) {
      if (written.record) return written.record;
      throw error;
    }
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

/** The move a write makes, named by the first event written with it (its outbox entry). */
function moveOf(
  events: EventEnvelope[],
  from: StateMove['from'],
  to: StateMove['to'],
  at: Date,
): StateMove {
  return { id: events[0]?.id ?? randomUUID(), from, to, at };
}
