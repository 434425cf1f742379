/** Deliveries and their stored schedule. Claims on a slot live in delivery-claims.ts. */
import type { FilterQuery, Model } from 'mongoose';
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

  /** Due deliveries, oldest slot first, skipping endpoints whose lanes are full. */
  async findDue(now: Date, limit: number, skipEndpoints: string[]): Promise<DueDelivery[]> {
    const filter: FilterQuery<DeliveryRecord> = {
      state: 'pending',
      next_attempt_at: { $lte: now },
    };
    if (skipEndpoints.length > 0) filter.endpoint_id = { $nin: skipEndpoints };
    const found = await this.model
      .find(filter, { _id: 1, endpoint_id: 1 })
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .lean<Pick<DeliveryRecord, '_id' | 'endpoint_id'>[]>()
      .exec();
    return found.map((d) => ({ id: d._id, endpoint_id: d.endpoint_id }));
  }

  /** Any merchant's delivery, for the senders (they act for every tenant). */
  async findAnyById(id: string): Promise<DeliveryRecord | null> {
    return this.model.findById(id).lean<DeliveryRecord>().exec();
  }

  async setClaimToken(id: string, token: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { claim_token: token } }).exec();
  }

  async applyOutcome(id: string, outcome: AttemptOutcome): Promise<void> {
    await this.model
      .updateOne({ _id: id }, { $set: { ...outcome, claim_token: null, updated_at: new Date() } })
      .exec();
  }

  /** Due again at once with a fresh 3-day window; an attempt in flight loses its claim. */
  async requeue(merchantId: string, id: string, now: Date): Promise<DeliveryRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, merchant_id: merchantId },
        {
          $set: {
            state: 'pending',
            next_attempt_at: now,
            first_attempt_at: null,
            claim_token: null,
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
