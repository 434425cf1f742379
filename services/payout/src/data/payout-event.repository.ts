/**
 * The payout event log (the outbox of payout events): a refresh's events are logged, the payout
 * is written, and only then are they relayed (`TenantRepository.relayAfter`), so a consumer that
 * reads the payout on hearing an event finds it written. A copy of a logged event is dropped.
 */
import type { Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext, EventRelay } from '@aff/messaging';
import { TenantRepository, isDuplicateKeyError, type HeldWrites } from '@aff/mongo';
import type { PayoutEventRecord } from './payout-event.schema';

export class PayoutEventRepository {
  private readonly tenant: TenantRepository<PayoutEventRecord>;

  constructor(model: Model<PayoutEventRecord>, relay: EventRelay) {
    this.tenant = new TenantRepository(model, { relay });
  }

  /** Logs the payout's events in order, runs `step` (the payout's write), then relays them. */
  async appendThen(
    payoutId: string,
    events: EventEnvelope[],
    context: EventContext,
    step: () => Promise<unknown>,
  ): Promise<void> {
    await this.tenant.relayAfter(async (held) => {
      for (const event of events) await append(held, payoutId, event, context);
    }, step);
  }
}

async function append(
  held: HeldWrites<PayoutEventRecord>,
  payoutId: string,
  event: EventEnvelope,
  context: EventContext,
): Promise<void> {
  try {
    await held.insert(
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
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}
