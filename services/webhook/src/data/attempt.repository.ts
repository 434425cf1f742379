/** Attempts of deliveries: each one both the claim on a slot and its line in the delivery log. */
import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';
import type { AttemptRecord } from './attempt.schema';

export type AttemptResult = Pick<AttemptRecord, 'response_status' | 'duration_ms' | 'error'>;

export class AttemptRepository {
  constructor(private readonly model: Model<AttemptRecord>) {}

  /** False when the id exists: someone else holds (or held) this claim. */
  async insertOnce(record: AttemptRecord): Promise<boolean> {
    try {
      await this.model.collection.insertOne(record as never);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  async findById(id: string): Promise<AttemptRecord | null> {
    return this.model.findById(id).lean<AttemptRecord>().exec();
  }

  async deleteById(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
  }

  async recordResult(id: string, result: AttemptResult, finishedAt: Date): Promise<void> {
    await this.model
      .updateOne({ _id: id }, { $set: { ...result, finished_at: finishedAt } })
      .exec();
  }

  /** Attempts of the given deliveries, oldest first. */
  async forDeliveries(merchantId: string, deliveryIds: string[]): Promise<AttemptRecord[]> {
    if (deliveryIds.length === 0) return [];
    return this.model
      .find({ merchant_id: merchantId, delivery_id: { $in: deliveryIds } })
      .sort({ started_at: 1, _id: 1 })
      .lean<AttemptRecord[]>()
      .exec();
  }

  async deleteForEndpoint(merchantId: string, endpointId: string): Promise<void> {
    await this.model.deleteMany({ merchant_id: merchantId, endpoint_id: endpointId }).exec();
  }
}
