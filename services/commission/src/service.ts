/** Wiring of the commission service: its models and object graph; the kernel runs it. */
import { STREAMS } from '@aff/contracts';
import { defineService, type ServiceDeps } from '@aff/kernel';
import { EventPublisher, startConsumer } from '@aff/messaging';
import { MerchantCounts, NEWEST_KEPT, NewestList, merchantCountsModel } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadCommissionConfig, type CommissionConfig } from './config';
import { chargesConsumer } from './consumers/charges.consumer';
import { payoutsConsumer } from './consumers/payouts.consumer';
import { CommissionRepository } from './data/commission.repository';
import { commissionModel } from './data/commission.schema';
import { SaleRepository } from './data/sale.repository';
import { saleModel } from './data/sale.schema';
import { ReviewDecisionRepository, reviewDecisionModel } from './data/review-decision.repository';
import { statsModels } from './data/commission-stats.schema';
import { STATS_BACKFILL_EVERY_MS, StatsBackfill } from './data/stats-backfill';
import { STATS_SWEEP_EVERY_MS, StatsSweep } from './data/stats-sweep';
import { StatsTally } from './data/stats-tally';
import { HeldCommissions } from './domain/held-commissions';
import { ChargeUseCases } from './domain/charges';
import { CommissionChanges } from './domain/commission-changes';
import { CommissionQueries } from './domain/queries';
import { DUE_BATCH, SettlementUseCases } from './domain/settlement';
import { DueSchedule } from './domain/due-schedule';
import { commissionRpcTable } from './rpc/rpc-table';

export const commissionModels = (mongo: Connection) => ({
  sale: saleModel(mongo),
  commission: commissionModel(mongo),
  reviewDecision: reviewDecisionModel(mongo),
  counts: merchantCountsModel(mongo, 'commission_counts'),
  stats: statsModels(mongo),
});
type CommissionModels = ReturnType<typeof commissionModels>;

export function buildCommission(deps: ServiceDeps<CommissionConfig, CommissionModels>) {
  const { config, log, models, nc, relay } = deps;
  // The stores relay the events they write (in the document's outbox) after the write, and
  // keep `commission_stats` with them (data/stats-tally.ts).
  const tally = new StatsTally(models.stats);
  const counted = {
    stats: tally,
    onSettleFailed: (err: unknown) => log.warn({ err }, 'commission stats left to the sweep'),
  };
  const sales = new SaleRepository(models.sale, relay, counted);
  const counts = new MerchantCounts(models.counts, NEWEST_KEPT);
  const due = new DueSchedule(config.COMMISSION_DUE_RECHECK_MS);
  const commissions = new CommissionRepository(
    models.commission,
    relay,
    {
      counts,
      onCountFailed: (err) => log.warn({ err }, 'commissions written but not counted'),
      onPending: (dueAt) => due.noteDue(dueAt),
    },
    counted,
  );
  const statsSweep = new StatsSweep(tally, { c: models.commission, s: models.sale });
  const backfill = new StatsBackfill(tally, models.sale, models.commission);
  const newest = new NewestList(models.commission, counts);
  const settlement = new SettlementUseCases(commissions, sales);
  const held = new HeldCommissions(
    commissions,
    new ReviewDecisionRepository(models.reviewDecision),
    settlement,
  );
  // A charge's events leave before its message is acked (the message is their outbox).
  const publisher = new EventPublisher(nc);
  const charges = new ChargeUseCases(sales, commissions, held, {
    publish: async (events, context) => {
      await Promise.all(events.map((event) => publisher.publish(event, context)));
    },
  });
  return {
    charges,
    settlement,
    consumers: [
      () =>
        startConsumer(nc, {
          stream: STREAMS.tracking.name,
          durable: 'commission-charges',
          ...chargesConsumer(charges, held),
          // Refunds waiting for their sale stay unacknowledged meanwhile; they must not hold
          // every slot of the durable and stall the charges they wait for.
          maxAckPending: 1000,
          log,
        }),
      () =>
        startConsumer(nc, {
          stream: STREAMS.payout.name,
          durable: 'commission-payouts',
          ...payoutsConsumer(settlement),
          log,
        }),
    ],
    intervals: [
      {
        everyMs: config.COMMISSION_DUE_SWEEP_MS,
        run: () => due.tick(() => settlement.moveDue(DUE_BATCH), DUE_BATCH),
        failure: 'due sweep failed',
      },
      {
        everyMs: STATS_SWEEP_EVERY_MS,
        run: () => statsSweep.run(),
        failure: 'commission stats sweep failed',
      },
      {
        everyMs: STATS_BACKFILL_EVERY_MS,
        run: () => backfill.run(),
        failure: 'commission stats backfill failed',
        atStart: true,
      },
    ],
    rpc: commissionRpcTable({
      queries: new CommissionQueries(commissions, sales, newest),
      changes: new CommissionChanges(commissions, sales, settlement),
      stats: tally,
    }),
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
