/** The stored schedule of pending deliveries: what is due when. */
import type { FilterQuery, Model } from 'mongoose';
import type { DeliverySchedule, DueDelivery } from '../domain/ports';
import type { ScheduleRecord } from './schedule.schema';

export class ScheduleRepository implements DeliverySchedule {
  constructor(private readonly model: Model<ScheduleRecord>) {}

  /** Schedules (or moves) the delivery's next attempt. */
  async set(due: DueDelivery): Promise<void> {
    await this.model
      .updateOne(
        { _id: due.id },
        {
          $set: {
            merchant_id: due.merchant_id,
            endpoint_id: due.endpoint_id,
            next_attempt_at: new Date(due.slot),
          },
        },
        { upsert: true },
      )
      .exec();
  }

  async remove(deliveryId: string): Promise<void> {
    await this.model.deleteOne({ _id: deliveryId }).exec();
  }

  /** Due deliveries, oldest slot first, skipping endpoints whose lanes are full. */
  async findDue(now: Date, limit: number, skipEndpoints: string[]): Promise<DueDelivery[]> {
    const filter: FilterQuery<ScheduleRecord> = { next_attempt_at: { $lte: now } };
    if (skipEndpoints.length > 0) filter.endpoint_id = { $nin: skipEndpoints };
    const found = await this.model
      .find(filter)
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .lean<ScheduleRecord[]>()
      .exec();
    return found.map((entry) => ({
      id: entry._id,
      merchant_id: entry.merchant_id,
      slot: new Date(entry.next_attempt_at).getTime(),
      endpoint_id: entry.endpoint_id,
    }));
  }

  async removeForEndpoint(merchantId: string, endpointId: string): Promise<void> {
    await this.model.deleteMany({ merchant_id: merchantId, endpoint_id: endpointId }).exec();
  }
}
