/** Wiring of the payout service: its models and object graph; the kernel runs it. */
import { defineService, type ServiceDeps } from '@aff/kernel';
import type { Connection } from 'mongoose';
import { configSchema, loadPayoutConfig, type PayoutConfig } from './config';
import { ClaimRepository } from './data/claim.repository';
import { claimModel } from './data/claim.schema';
import { CommissionRepository } from './data/commission.repository';
import { commissionModel } from './data/commission.schema';
import { PaymentStepRepository } from './data/payment-step.repository';
import { paymentStepModel } from './data/payment-step.schema';
import { PayoutEventRepository } from './data/payout-event.repository';
import { payoutEventModel } from './data/payout-event.schema';
import { PayoutExportRepository } from './data/payout-export.repository';
import { payoutExportModel } from './data/payout-export.schema';
import { PayoutHoldRepository } from './data/payout-hold.repository';
import { PayoutRepository } from './data/payout.repository';
import { payoutModel } from './data/payout.schema';
import { SnapshotRepository } from './data/snapshot.repository';
import { affiliateSnapshotModel, campaignSnapshotModel } from './data/snapshot.schema';
import { CompletePayment } from './domain/complete-payment';
import { CreateExport } from './domain/exports/create-export';
import { ExportPresenter } from './domain/exports/export-presenter';
import { ExportQueries } from './domain/exports/export-queries';
import { SettleExport } from './domain/exports/settle-export';
import { GeneratePayouts } from './domain/generate-payouts';
import { PayPayout } from './domain/pay-payout';
import { PayoutPresenter } from './domain/payout-presenter';
import { PayoutQueries } from './domain/payout-queries';
import { PayoutRefresher } from './domain/payout-refresher';
import { ReadModels } from './domain/read-models';
import { RecordPayment } from './domain/record-payment';
import { startAffiliateConsumer } from './consumers/affiliate.consumer';
import { startCommissionConsumer } from './consumers/commission.consumer';
import { ExportRecovery } from './jobs/export-recovery';
import { generateJob } from './jobs/generate-scheduler';
import { PaymentWorker } from './jobs/payment-worker';
import { payoutRpcTable } from './rpc/rpc-table';

export const payoutModels = (mongo: Connection) => ({
  payout: payoutModel(mongo),
  claim: claimModel(mongo),
  step: paymentStepModel(mongo),
  event: payoutEventModel(mongo),
  commission: commissionModel(mongo),
  affiliate: affiliateSnapshotModel(mongo),
  campaign: campaignSnapshotModel(mongo),
  payoutExport: payoutExportModel(mongo),
});
type PayoutModels = ReturnType<typeof payoutModels>;

export function buildPayout(deps: ServiceDeps<PayoutConfig, PayoutModels>) {
  const { config, log, models, nc, relay } = deps;
  // A refresh's events are logged, and relayed after the payout's write.
  const payouts = new PayoutRepository(
    models.payout,
    new PayoutEventRepository(models.event, relay),
  );
  const claims = new ClaimRepository(models.claim);
  const steps = new PaymentStepRepository(models.step);
  const holds = new PayoutHoldRepository(models.payout);
  const exports = new PayoutExportRepository(models.payoutExport, relay);
  const commissions = new CommissionRepository(models.commission);
  const affiliates = new SnapshotRepository(models.affiliate);
  const campaigns = new SnapshotRepository(models.campaign);

  const presenter = new PayoutPresenter(commissions, affiliates, campaigns);
  const refresher = new PayoutRefresher(
    payouts,
    claims,
    steps,
    commissions,
    affiliates,
    campaigns,
    presenter,
    holds,
  );
  const recorder = new RecordPayment(claims, steps, commissions);
  const generate = new GeneratePayouts(
    payouts,
    commissions,
    claims,
    steps,
    refresher,
    presenter,
    holds,
  );
  const complete = new CompletePayment(steps, recorder, refresher);
  const worker = new PaymentWorker(
    steps,
    complete,
    {
      concurrency: config.PAYOUT_PAY_CONCURRENCY,
      delayMs: config.PAYOUT_PROCESSING_DELAY_MS,
      leaseMs: config.PAYOUT_JOB_LEASE_MS,
      sweepMs: config.PAYOUT_JOB_SWEEP_MS,
    },
    log.child({ component: 'payments' }),
  );
  const pay = new PayPayout(payouts, steps, recorder, refresher, presenter, worker, holds);
  const readModels = new ReadModels(commissions, affiliates, campaigns, claims, refresher);
  const exportPresenter = new ExportPresenter(config.PUBLIC_URL);
  const settle = new SettleExport(
    exports,
    holds,
    steps,
    refresher,
    exportPresenter,
    worker,
    config.PAYOUT_EXPORT_STEP_DELAY_MS,
  );
  const createExport = new CreateExport(
    exports,
    holds,
    steps,
    affiliates,
    refresher,
    exportPresenter,
    settle,
    { stepDelayMs: config.PAYOUT_EXPORT_STEP_DELAY_MS },
  );
  const recovery = new ExportRecovery(
    exports,
    settle,
    holds,
    steps,
    refresher,
    { everyMs: config.PAYOUT_EXPORT_SWEEP_MS, leaseMs: config.PAYOUT_EXPORT_LEASE_MS },
    log.child({ component: 'exports' }),
  );

  return {
    payouts,
    commissions,
    generate,
    pay,
    complete,
    worker,
    consumers: [
      () => startCommissionConsumer(nc, readModels, log),
      () => startAffiliateConsumer(nc, readModels, log),
    ],
    workers: [worker],
    intervals: [generateJob(generate, config.PAYOUT_GENERATE_INTERVAL_MS, log), recovery.job()],
    rpc: payoutRpcTable({
      payouts: { queries: new PayoutQueries(payouts, presenter), pay, generate },
      exports: {
        create: createExport,
        settle,
        queries: new ExportQueries(exports, exportPresenter),
      },
    }),
  };
}

export const payoutService = defineService({
  name: 'payout',
  configSchema,
  loadConfig: loadPayoutConfig,
  models: payoutModels,
  // Payout events are written to their own collection and relayed from there; export events
  // ride on the export's own document.
  outbox: (models) => [models.event, models.payoutExport],
  build: buildPayout,
});
