/**
 * Deliveries (one event for one endpoint) over MongoDB: the domain's `DeliveryStore`, each
 * document with its attempts embedded (`attempts`). Claims on a slot are decided in
 * domain/delivery-claims.ts.
 */
import type { FilterQuery, Model, mongo } from 'mongoose';
import { Batcher } from '@aff/messaging';
import { TenantRepository, driverCollection, isDuplicateKeyError } from '@aff/mongo';
import type { DeliveryStore, Page } from '../domain/ports';
import {
  NO_LEASE,
  type DeliveryRecord,
  type DeliveryState,
  type Lease,
  type LoggedAttempt,
} from '../domain/records';
import type { AttemptOutcome } from '../domain/retry-schedule';
import type { DeliveryDoc } from './delivery.schema';

/** One attempt's outcome and log line, applied while its claim (`token`) still holds `slot`. */
interface OutcomeWrite {
  id: string;
  slot: Date;
  token: string;
  outcome: AttemptOutcome;
  attempt: LoggedAttempt;
}

export class DeliveryRepository implements DeliveryStore {
  readonly tenant: TenantRepository<DeliveryDoc>;
  /**
   * Outcomes of attempts finishing together share one unordered `bulkWrite` (retries, and
   * first attempts whose delivery was stored before they answered).
   */
  private readonly outcomes = new Batcher<OutcomeWrite, boolean>({
    maxItems: 500,
    flush: (writes) => this.applyOutcomes(writes),
  });

  constructor(private readonly model: Model<DeliveryDoc>) {
    this.tenant = new TenantRepository(model);
  }

  /**
   * False when the delivery is already stored, or its event has one for this endpoint. Inserts
   * arriving together share one unordered `insertMany` (the tenant repository's batch).
   */
  async insertOnce(record: DeliveryRecord): Promise<boolean> {
    try {
      await this.tenant.insert(record);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  findById(merchantId: string, id: string): Promise<DeliveryRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  /** The endpoint's deliveries in the given states (all when none), newest first. */
  pageOfEndpoint(
    merchantId: string,
    endpointId: string,
    states: DeliveryState[],
    skip: number,
    limit: number,
  ): Promise<Page<DeliveryRecord>> {
    const filter: FilterQuery<DeliveryDoc> = { endpoint_id: endpointId };
    if (states.length > 0) filter.state = { $in: states };
    return this.tenant.page(merchantId, filter, skip, limit);
  }

  /**
   * The deliveries an event already has, for any of these endpoints: exactly the unique
   * `{event_id, endpoint_id}` index's fields with one `$in`, an index look-up per endpoint on
   * both servers (docs/local-database.md). It finds deliveries stored under a random id before
   * ids were derived from (event, endpoint) too.
   */
  async findForEvent(eventId: string, endpointIds: string[]): Promise<DeliveryRecord[]> {
    return this.model
      .find({ event_id: eventId, endpoint_id: { $in: endpointIds } })
      .lean<DeliveryDoc[]>()
      .exec();
  }

  /**
   * Takes the slot `slot` of a pending delivery for `lease`: only while the delivery is still at
   * that slot and nobody holds it (or the holder's lease ran out, or the holder is the caller
   * renewing its own lease, `ownToken`). Returns the delivery as it was
   * before (its lease fields tell of an interrupted holder), or null.
   */
  async claimSlot(
    merchantId: string,
    id: string,
    slot: Date,
    now: Date,
    lease: Lease,
    ownToken?: string,
  ): Promise<DeliveryRecord | null> {
    const free: Record<string, unknown>[] = [{ lease_until: null }, { lease_until: { $lte: now } }];
    if (ownToken) free.push({ lease_token: ownToken });
    return this.tenant.findOneAndUpdate(
      merchantId,
      { _id: id, state: 'pending', next_attempt_at: slot, $or: free },
      { $set: lease },
      'before',
    );
  }

  /**
   * Applies an attempt's outcome if its claim still holds the slot (a redeliver or a takeover may
   * have replaced it), and lets the slot go.
   */
  applyOutcome(
    id: string,
    slot: Date,
    token: string,
    outcome: AttemptOutcome,
    attempt: LoggedAttempt,
  ): Promise<boolean> {
    return this.outcomes.push({ id, slot, token, outcome, attempt });
  }

  /** Logs an attempt that decided nothing; its id (the claim's token) keeps it to one line. */
  async logAttempt(merchantId: string, id: string, attempt: LoggedAttempt): Promise<void> {
    await this.tenant.updateOne(
      merchantId,
      { _id: id, 'attempts._id': { $ne: attempt._id } },
      { $push: { attempts: attempt } },
    );
  }

  /**
   * A bulk write tells only how many of its updates matched. When all did (the usual case) each
   * applied; otherwise the delivery's `outcome_token`, written by the update, tells which did.
   */
  private async applyOutcomes(writes: OutcomeWrite[]): Promise<boolean[]> {
    const updatedAt = new Date();
    const ops = writes.map(
      ({ id, slot, token, outcome, attempt }): mongo.AnyBulkWriteOperation<DeliveryDoc> => ({
        updateOne: {
          // The lease token, cleared by this very update, keeps a retried write from logging twice.
          filter: { _id: id, state: 'pending', next_attempt_at: slot, lease_token: token },
          update: {
            $set: { ...outcome, ...NO_LEASE, outcome_token: token, updated_at: updatedAt },
            $push: { attempts: attempt },
          },
        },
      }),
    );
    const result = await driverCollection(this.model).bulkWrite(ops, { ordered: false });
    if (result.matchedCount === writes.length) return writes.map(() => true);
    const written = await driverCollection(this.model)
      .find<Pick<DeliveryDoc, '_id' | 'outcome_token'>>(
        { _id: { $in: writes.map((w) => w.id) } },
        { projection: { outcome_token: 1 } },
      )
      .toArray();
    const tokenOf = new Map(written.map((d) => [d._id, d.outcome_token]));
    return writes.map((w) => tokenOf.get(w.id) === w.token);
  }

  /** Due again at once with a fresh 3-day window; an attempt in flight no longer decides. */
  async requeue(merchantId: string, id: string, now: Date): Promise<DeliveryRecord | null> {
    return this.tenant.findOneAndUpdate(
      merchantId,
      { _id: id },
      {
        $set: {
          state: 'pending',
          next_attempt_at: now,
          first_attempt_at: null,
          ...NO_LEASE,
          updated_at: now,
        },
      },
      'after',
    );
  }

  async deleteForEndpoint(merchantId: string, endpointId: string): Promise<void> {
    await this.tenant.deleteMany(merchantId, { endpoint_id: endpointId });
  }
}
