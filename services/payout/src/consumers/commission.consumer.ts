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
    // One at a time, in stream order: FerretDB does not isolate a read model's "only if newer"
    // write from another one of the same record.
    concurrency: 1,
    filterSubjects: ['evt.commission.>'],
    log: log.child({ consumer: 'payout-commissions' }),
    handle: async (event, eventLog) => {
      if (!types.includes(event.type)) return;
      await readModels.applyCommission(event, currentEventContext(), eventLog);
    },
  });
}
