/** The stored schedule of pending deliveries: what is due when. */
import type { FilterQuery, Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { DeliverySchedule, DueDelivery } from '../domain/ports';
import type { ScheduleRecord } from './schedule.schema';

export class ScheduleRepository implements DeliverySchedule {
  private readonly entries: ScopedRepository<ScheduleRecord>;

  constructor(model: Model<ScheduleRecord>) {
    this.entries = new ScopedRepository(model);
  }

  /** Schedules (or moves) the delivery's next attempt. */
  async set(due: DueDelivery): Promise<void> {
    await this.entries.upsert(
      due.merchant_id,
      { _id: due.id },
      { $set: { endpoint_id: due.endpoint_id, next_attempt_at: new Date(due.slot) } },
    );
  }

  /** By delivery id alone (a delivery's id is unique across merchants). */
  async remove(deliveryId: string): Promise<void> {
    await this.entries.model.deleteOne({ _id: deliveryId }).exec();
  }

  /**
   * Due deliveries of every merchant (the dispatcher's tick), oldest slot first, skipping
   * endpoints whose lanes are full.
   */
  async findDue(now: Date, limit: number, skipEndpoints: string[]): Promise<DueDelivery[]> {
    const filter: FilterQuery<ScheduleRecord> = { next_attempt_at: { $lte: now } };
    if (skipEndpoints.length > 0) filter.endpoint_id = { $nin: skipEndpoints };
    const found = await this.entries.model
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
    await this.entries.deleteMany(merchantId, { endpoint_id: endpointId });
  }
}
