/** Wiring of the commission service: its models and object graph; the kernel runs it. */
import { STREAMS } from '@aff/contracts';
import { defineService, type ServiceDeps } from '@aff/kernel';
import { startConsumer } from '@aff/messaging';
import { NewestIndex, TenantRepository } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadCommissionConfig, type CommissionConfig } from './config';
import { CHARGE_SUBJECTS, chargeOrderingKey, chargesHandler } from './consumers/charges.consumer';
import { PAYOUT_SUBJECTS, payoutsHandler } from './consumers/payouts.consumer';
import { commissionModel } from './data/commission.schema';
import { saleModel } from './data/sale.schema';
import { ChargeUseCases } from './domain/charges';
import { CommissionChanges } from './domain/commission-changes';
import { CommissionQueries } from './domain/queries';
import { SettlementUseCases } from './domain/settlement';
import { commissionRpc } from './rpc/commission.rpc';

export const commissionModels = (mongo: Connection) => ({
  sale: saleModel(mongo),
  commission: commissionModel(mongo),
});
type CommissionModels = ReturnType<typeof commissionModels>;

export function buildCommission(deps: ServiceDeps<CommissionConfig, CommissionModels>) {
  const { config, log, models, nc, relay } = deps;
  const sales = new TenantRepository(models.sale);
  const commissions = new TenantRepository(models.commission);
  const newest = NewestIndex.of(models.commission, 'evt.commission.created');
  const charges = new ChargeUseCases(sales, commissions, relay, newest);
  const settlement = new SettlementUseCases(commissions, sales, relay);
  return {
    charges,
    settlement,
    load: () => newest.load(),
    follow: () => newest.follow(nc, log),
    consumers: [
      () =>
        startConsumer(nc, {
          stream: STREAMS.tracking.name,
          durable: 'commission-charges',
          filterSubjects: CHARGE_SUBJECTS,
          orderingKey: chargeOrderingKey,
          // Refunds waiting for their sale stay unacknowledged meanwhile; they must not hold
          // every slot of the durable and stall the charges they wait for.
          maxAckPending: 1000,
          handle: chargesHandler(charges),
          log,
        }),
      () =>
        startConsumer(nc, {
          stream: STREAMS.payout.name,
          durable: 'commission-payouts',
          filterSubjects: PAYOUT_SUBJECTS,
          // Marking paid is a conditional update, so events of different payouts may run at once.
          orderingKey: (event) => String((event.data as { id?: unknown }).id ?? event.id),
          handle: payoutsHandler(settlement),
          log,
        }),
    ],
    intervals: [
      {
        everyMs: config.COMMISSION_DUE_SWEEP_MS,
        run: () => settlement.moveDue(models.commission),
        failure: 'due sweep failed',
      },
    ],
    rpc: commissionRpc(
      new CommissionQueries(commissions, sales, newest),
      new CommissionChanges(commissions, sales, settlement),
    ),
  };
}

export const commissionService = defineService({
  name: 'commission',
  configSchema,
  loadConfig: loadCommissionConfig,
  models: commissionModels,
  outbox: (models) => [models.sale, models.commission],
  build: buildCommission,
});
