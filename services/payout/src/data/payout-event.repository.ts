/** Appends payout events to the event log (the outbox); a copy of a logged event is dropped. */
import type { Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, PendingEvent } from '@aff/messaging';
import { TenantRepository, isDuplicateKeyError } from '@aff/mongo';
import type { PayoutEventRecord } from './payout-event.schema';

export class PayoutEventRepository {
  private readonly tenant: TenantRepository<PayoutEventRecord>;

  constructor(model: Model<PayoutEventRecord>) {
    this.tenant = new TenantRepository(model);
  }

  async append(
    payoutId: string,
    event: EventEnvelope,
    context: EventContext,
  ): Promise<PendingEvent[]> {
    try {
      const result = await this.tenant.insert(
        {
          _id: event.id,
          merchant_id: event.merchant_id,
          payout_id: payoutId,
          type: event.type,
          created_at: new Date(),
        },
        [event],
        context,
      );
      return result.pending;
    } catch (error) {
      if (isDuplicateKeyError(error)) return [];
      throw error;
    }
  }
}
