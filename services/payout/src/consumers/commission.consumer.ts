/** Commission events (commission service) → the local commission read model. */
import { STREAMS, type CommissionEventView } from '@aff/contracts';
import {
  currentEventContext,
  eventHandlers,
  startConsumer,
  type EventHandler,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { Logger } from '@aff/logging';
import type { ReadModels } from '../domain/read-models';

type CommissionEvent =
  'commission.created' | 'commission.updated' | 'commission.paid' | 'commission.voided';

export function startCommissionConsumer(
  nc: NatsConnection,
  readModels: ReadModels,
  log: Logger,
): Promise<RunningConsumer> {
  const apply: EventHandler<CommissionEvent> = (_data, { event }) =>
    readModels.applyCommission(event, currentEventContext());
  // In order per affiliate: a payout bundles one affiliate's commissions and is refreshed
  // whole, so two refreshes of one payout must not interleave. Affiliates run concurrently.
  const byAffiliate = (data: CommissionEventView) => data.sale.affiliate.id;
  // A created event never refreshes a payout (see ReadModels.applyCommission) and its copy is
  // versioned, so it needs no lane of its affiliate: a busy affiliate's new commissions are
  // applied side by side, and their writes share one bulk write.
  const byCommission = (data: CommissionEventView) => data.id;
  return startConsumer(nc, {
    stream: STREAMS.commission.name,
    durable: 'payout-commissions',
    log: log.child({ consumer: 'payout-commissions' }),
    ...eventHandlers(
      {
        'commission.created': apply,
        'commission.updated': apply,
        'commission.paid': apply,
        'commission.voided': apply,
      },
      {
        'commission.created': byCommission,
        'commission.updated': byAffiliate,
        'commission.paid': byAffiliate,
        'commission.voided': byAffiliate,
      },
    ),
  });
}
