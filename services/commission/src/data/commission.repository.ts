/**
 * Commissions over MongoDB (the domain's `CommissionStore`). Events written with a commission
 * are relayed by the tenant repository once the write is done; a duplicate key becomes the domain's
 * `DuplicateError`.
 */
import type { FilterQuery, Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, EventRelay } from '@aff/messaging';
import { TenantRepository, mapDuplicate, type TenantRepositoryOptions } from '@aff/mongo';
import { commissionFigures } from '../domain/commission-stats';
import {
  type CommissionCondition,
  type CommissionFilters,
  type CommissionStore,
  type Page,
} from '../domain/ports';
import type { CommissionRecord } from '../domain/records';
import type { CommissionDoc } from './commission.schema';
import type { StatsTally } from './stats-tally';
import { changeCounted, countInserts, type OnSettleFailed } from './stats-writes';

/** `commission_stats` kept with the writes (stats-tally.ts); absent: not kept (some tests). */
export interface CountedStats {
  stats: StatsTally;
  onSettleFailed: OnSettleFailed;
}

export class CommissionRepository implements CommissionStore {
  private readonly tenant: TenantRepository<CommissionDoc>;

  constructor(
    private readonly model: Model<CommissionDoc>,
    relay: EventRelay,
    opts: TenantRepositoryOptions<CommissionDoc> & {
      /** Told the due time of each pending (not held) commission written (the due sweep's schedule). */
      onPending?: (dueAt: Date) => void;
    } = {},
    private readonly counted?: CountedStats,
  ) {
    const { onPending = () => undefined, ...tenantOpts } = opts;
    this.counts = opts.counts;
    this.tenant = new TenantRepository(model, {
      ...tenantOpts,
      relay,
      ...(counted
        ? { countBatch: countInserts<CommissionDoc>(counted.stats, 'c', commissionFigures) }
        : {}),
    });
    this.onPending = (record) => {
      if (record.state === 'pending' && !record.held) onPending(record.due_at);
    };
  }

  private readonly onPending: (record: CommissionRecord) => void;
  private readonly counts: TenantRepositoryOptions<CommissionDoc>['counts'];

  findById(merchantId: string, id: string): Promise<CommissionRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  findBySale(merchantId: string, saleId: string): Promise<CommissionRecord | null> {
    return this.tenant.findOne(merchantId, { sale_id: saleId });
  }

  findByIds(merchantId: string, ids: string[]): Promise<CommissionRecord[]> {
    return this.tenant.findMany(merchantId, { _id: { $in: ids } });
  }

  page(
    merchantId: string,
    filters: CommissionFilters,
    skip: number,
    limit: number,
  ): Promise<Page<CommissionRecord>> {
    const filter: FilterQuery<CommissionDoc> = {};
    if (filters.affiliate_id) filter.affiliate_id = filters.affiliate_id;
    if (filters.states?.length) filter.state = { $in: filters.states };
    if (filters.created_since || filters.created_until) {
      // A range on created_at: the tail of every list index, so each filter's index serves it.
      filter.created_at = {
        ...(filters.created_since ? { $gte: filters.created_since } : {}),
        ...(filters.created_until ? { $lt: filters.created_until } : {}),
      };
    }
    return this.tenant.page(merchantId, filter, skip, limit);
  }

  countNotVoided(merchantId: string, referralId: string): Promise<number> {
    return this.tenant.count(merchantId, { referral_id: referralId, state: { $ne: 'voided' } });
  }

  async insert(
    record: CommissionRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void> {
    await mapDuplicate(this.tenant.insert(record, events, context), 'Commission');
    this.onPending(record);
  }

  async countIfMissed(record: CommissionRecord): Promise<void> {
    await this.counts?.countIfMissed(record);
  }

  async change(
    merchantId: string,
    id: string,
    condition: CommissionCondition,
    changes: Partial<CommissionRecord>,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<CommissionRecord | null> {
    if (this.counted) {
      const changed = await changeCounted<CommissionDoc>({
        ...this.counted,
        kind: 'c',
        tenant: this.tenant,
        figures: commissionFigures,
        merchantId,
        id,
        allows: (before) => holds(condition, before),
        changes,
        events,
        context,
      });
      if (changed) this.onPending(changed);
      return changed;
    }
    const filter: FilterQuery<CommissionDoc> = {};
    if (condition.version) filter.updated_at = condition.version;
    filter.state = { $in: condition.states };
    if (condition.amountAbove !== undefined) filter.amount = { $gt: condition.amountAbove };
    if (condition.held !== undefined) filter.held = condition.held ? true : { $ne: true };
    const result = await this.tenant.updateIf(
      merchantId,
      id,
      filter,
      { $set: changes },
      events,
      context,
    );
    if (!result) return null;
    this.onPending(result.record);
    return result.record;
  }

  pendingDueBy(now: Date, limit: number): Promise<CommissionRecord[]> {
    return this.model
      .find({ state: 'pending', due_at: { $lte: now }, held: { $ne: true } })
      .limit(limit)
      .lean<CommissionDoc[]>()
      .exec();
  }

  heldOf(merchantId: string, referralId: string): Promise<CommissionRecord[]> {
    return this.tenant.findMany(merchantId, { referral_id: referralId, held: true });
  }
}

/** `condition` on a version read (what `change`'s filter asks of the stored commission). */
function holds(condition: CommissionCondition, c: CommissionRecord): boolean {
  if (!condition.states.includes(c.state)) return false;
  if (condition.amountAbove !== undefined && !(c.amount > condition.amountAbove)) return false;
  if (condition.version && new Date(c.updated_at).getTime() !== condition.version.getTime())
    return false;
  if (condition.held !== undefined && (c.held === true) !== condition.held) return false;
  return true;
}
