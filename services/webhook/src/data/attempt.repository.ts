/**
 * The delivery log's lines as stored before attempts were embedded in their delivery
 * (`webhook_attempts`, the domain's `AttemptLog`): nothing writes here any more; deliveries
 * stored then are read with these lines until the log's retention prunes both (log-pruner.ts).
 */
import type { Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { AttemptLog } from '../domain/ports';
import type { AttemptRecord } from '../domain/records';

export class AttemptRepository implements AttemptLog {
  private readonly attempts: ScopedRepository<AttemptRecord>;

  constructor(model: Model<AttemptRecord>) {
    this.attempts = new ScopedRepository(model);
  }

  /** Attempts of the given deliveries, oldest first. */
  async forDeliveries(merchantId: string, deliveryIds: string[]): Promise<AttemptRecord[]> {
    if (deliveryIds.length === 0) return [];
    return this.attempts.find(
      merchantId,
      { delivery_id: { $in: deliveryIds } },
      { sort: { started_at: 1, _id: 1 } },
    );
  }

  async deleteForEndpoint(merchantId: string, endpointId: string): Promise<void> {
    await this.attempts.deleteMany(merchantId, { endpoint_id: endpointId });
  }
}
