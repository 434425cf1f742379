/** Commission events (commission service) → the local commission read model. */
import { STREAMS } from '@aff/contracts';
import {
  currentEventContext,
  startConsumer,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { Logger } from '@aff/logging';
import { COMMISSION_EVENT_TYPES, type ReadModels } from '../domain/read-models';

export function startCommissionConsumer(
  nc: NatsConnection,
  readModels: ReadModels,
  log: Logger,
): Promise<RunningConsumer> {
  const types: readonly string[] = COMMISSION_EVENT_TYPES;
  return startConsumer(nc, {
    stream: STREAMS.commission.name,
    durable: 'payout-commissions',
    // In order per affiliate: a payout bundles one affiliate's commissions and is refreshed
    // whole, so two refreshes of one payout must not interleave. Affiliates run concurrently.
    orderingKey: (event) => {
      const data = event.data as { affiliate_id?: string; sale?: { affiliate?: { id?: string } } };
      return data.affiliate_id ?? data.sale?.affiliate?.id ?? event.id;
    },
    filterSubjects: ['evt.commission.>'],
    log: log.child({ consumer: 'payout-commissions' }),
    handle: async (event, eventLog) => {
      if (!types.includes(event.type)) return;
      await readModels.applyCommission(event, currentEventContext(), eventLog);
    },
  });
}
