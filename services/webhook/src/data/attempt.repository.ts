/** The delivery log (the domain's `AttemptLog`): one line per attempt, written in batches. */
import type { Model } from 'mongoose';
import { Batcher } from '@aff/messaging';
import { insertManyUnordered, isDuplicateKeyError } from '@aff/mongo';
import type { AttemptLog } from '../domain/ports';
import type { AttemptRecord } from '../domain/records';

export class AttemptRepository implements AttemptLog {
  /** Lines logged together share one unordered `insertMany`. */
  private readonly lines: Batcher<AttemptRecord>;

  constructor(private readonly model: Model<AttemptRecord>) {
    this.lines = new Batcher<AttemptRecord>({
      // A line already there (its id is the claim's token) was logged before a crash or retry.
      flush: async (records) =>
        (
          await insertManyUnordered(model, records).catch((error: unknown) =>
            records.map(() => error as Error),
          )
        ).map((result) => (result && isDuplicateKeyError(result) ? undefined : result)),
    });
  }

  /** Logs a finished (or interrupted) attempt; a repeat of the same id changes nothing. */
  async log(record: AttemptRecord): Promise<void> {
    await this.lines.push(record);
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
