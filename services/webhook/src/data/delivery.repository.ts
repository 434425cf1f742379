/** Deliveries (one event for one endpoint). Claims on a slot live in delivery-claims.ts. */
import type { Model } from 'mongoose';
import { TenantRepository, isDuplicateKeyError } from '@aff/mongo';
import type { DueDelivery } from '../domain/ports';
import type { AttemptOutcome } from '../domain/retry-schedule';
import type { DeliveryRecord } from './delivery.schema';

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

  /** The delivery, if it is still pending at `slot` (not finished or redelivered since). */
  async findPendingAt(merchantId: string, id: string, slot: Date): Promise<DeliveryRecord | null> {
    const delivery = await this.tenant.findById(merchantId, id);
    const current = delivery?.state === 'pending' && delivery.next_attempt_at;
    return current && new Date(current).getTime() === slot.getTime() ? delivery : null;
  }

  /** Applies an attempt's outcome if the delivery is still at the slot the attempt claimed. */
  async applyOutcome(id: string, slot: Date, outcome: AttemptOutcome): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: id, state: 'pending', next_attempt_at: slot },
        { $set: { ...outcome, updated_at: new Date() } },
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
