/** Deliveries (one event for one endpoint). Claims on a slot live in delivery-claims.ts. */
import type { Model } from 'mongoose';
import { TenantRepository, isDuplicateKeyError } from '@aff/mongo';
import type { DueDelivery } from '../domain/ports';
import type { AttemptOutcome } from '../domain/retry-schedule';
import type { DeliveryRecord } from './delivery.schema';

/** Who holds a delivery's slot, and until when. */
export interface Lease {
  lease_until: Date;
  lease_token: string;
  lease_request_id: string;
  lease_started_at: Date;
}

const NO_LEASE = {
  lease_until: null,
  lease_token: null,
  lease_request_id: null,
  lease_started_at: null,
};

export class DeliveryRepository {
  readonly tenant: TenantRepository<DeliveryRecord>;

  constructor(private readonly model: Model<DeliveryRecord>) {
    this.tenant = new TenantRepository(model);
  }

  /** False when this event already has a delivery for this endpoint (a redelivered event). */
  async insertOnce(record: Omit<DeliveryRecord, 'pending_events'>): Promise<boolean> {
    try {
      await this.tenant.insert(record);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** The delivery an event already has for an endpoint. */
  async findForEvent(eventId: string, endpointId: string): Promise<DeliveryRecord | null> {
    return this.model
      .findOne({ event_id: eventId, endpoint_id: endpointId })
      .lean<DeliveryRecord>()
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
    return this.model
      .findOneAndUpdate(
        {
          _id: id,
          merchant_id: merchantId,
          state: 'pending',
          next_attempt_at: slot,
          $or: free,
        },
        { $set: lease },
        { new: false },
      )
      .lean<DeliveryRecord>()
      .exec();
  }

  /**
   * Applies an attempt's outcome if its claim still holds the slot (a redeliver or a takeover may
   * have replaced it), and lets the slot go.
   */
  async applyOutcome(
    id: string,
    slot: Date,
    token: string,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: id, state: 'pending', next_attempt_at: slot, lease_token: token },
        { $set: { ...outcome, ...NO_LEASE, updated_at: new Date() } },
      )
      .exec();
    return result.matchedCount > 0;
  }

  /** Due again at once with a fresh 3-day window; an attempt in flight no longer decides. */
  async requeue(merchantId: string, id: string, now: Date): Promise<DeliveryRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, merchant_id: merchantId },
        {
          $set: {
            state: 'pending',
            next_attempt_at: now,
            first_attempt_at: null,
            ...NO_LEASE,
            updated_at: now,
          },
        },
        { new: true },
      )
      .lean<DeliveryRecord>()
      .exec();
  }

  async deleteForEndpoint(merchantId: string, endpointId: string): Promise<void> {
    await this.model.deleteMany({ merchant_id: merchantId, endpoint_id: endpointId }).exec();
  }
}

/** The schedule entry of a pending delivery: due at its `next_attempt_at`. */
export function toDue(
  record: Pick<DeliveryRecord, '_id' | 'merchant_id' | 'endpoint_id' | 'next_attempt_at'>,
): DueDelivery {
  return {
    id: record._id,
    merchant_id: record.merchant_id,
    slot: new Date(record.next_attempt_at!).getTime(),
    endpoint_id: record.endpoint_id,
  };
}
