/** Composition root: connections, repositories, use cases and entry points; start and stop. */
import type { Connection } from 'mongoose';
import { atMost, startHealthServer, type HealthServer } from '@aff/api';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  OutboxRelay,
  connectNats,
  natsReachable,
  ensureStreams,
  serveRpc,
  type NatsConnection,
  type RunningConsumer,
  type Subscription,
} from '@aff/messaging';
import { MongoPendingEventStore, connectMongo, mongoReachable } from '@aff/mongo';
import type { PayoutConfig } from './config';
import { ClaimRepository } from './data/claim.repository';
import { claimModel } from './data/claim.schema';
import { CommissionRepository } from './data/commission.repository';
import { commissionModel } from './data/commission.schema';
import { PaymentStepRepository } from './data/payment-step.repository';
import { paymentStepModel } from './data/payment-step.schema';
import { PayoutEventRepository } from './data/payout-event.repository';
import { payoutEventModel } from './data/payout-event.schema';
import { PayoutRepository } from './data/payout.repository';
import { payoutModel } from './data/payout.schema';
import { SnapshotRepository } from './data/snapshot.repository';
import { affiliateSnapshotModel, campaignSnapshotModel } from './data/snapshot.schema';
import { CompletePayment } from './domain/complete-payment';
import { GeneratePayouts } from './domain/generate-payouts';
import { PayPayout } from './domain/pay-payout';
import { PayoutPresenter } from './domain/payout-presenter';
import { PayoutQueries } from './domain/payout-queries';
import { PayoutRefresher } from './domain/payout-refresher';
import { ReadModels } from './domain/read-models';
import { RecordPayment } from './domain/record-payment';
import { startAffiliateConsumer } from './consumers/affiliate.consumer';
import { startCommissionConsumer } from './consumers/commission.consumer';
import { startGenerateScheduler } from './jobs/generate-scheduler';
import { PaymentWorker } from './jobs/payment-worker';
import { payoutRpc } from './rpc/payout.rpc';

export interface RunningService {
  healthPort: number | undefined;
  stop(): Promise<void>;
}

export async function startPayoutService(
  config: PayoutConfig,
  log: Logger,
): Promise<RunningService> {
  const mongo: Connection = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc: NatsConnection = await connectNats(config.NATS_URL, 'payout', log);
  // Every stream, not only ours: our consumers must exist before the producers first publish.
  await ensureStreams(nc);

  const models = {
    payout: payoutModel(mongo),
    claim: claimModel(mongo),
    step: paymentStepModel(mongo),
    event: payoutEventModel(mongo),
    commission: commissionModel(mongo),
    affiliate: affiliateSnapshotModel(mongo),
    campaign: campaignSnapshotModel(mongo),
  };
  await Promise.all(Object.values(models).map((model) => model.init()));
  const payouts = new PayoutRepository(models.payout);
  const claims = new ClaimRepository(models.claim);
  const steps = new PaymentStepRepository(models.step);
  const commissions = new CommissionRepository(models.commission);
  const affiliates = new SnapshotRepository(models.affiliate);
  const campaigns = new SnapshotRepository(models.campaign);

  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore([models.event]),
    log,
  );
  relay.start(config.OUTBOX_SWEEP_MS);

  const presenter = new PayoutPresenter(commissions, affiliates, campaigns);
  const refresher = new PayoutRefresher(
    payouts,
    claims,
    steps,
    commissions,
    affiliates,
    campaigns,
    presenter,
    new PayoutEventRepository(models.event),
    relay,
  );
  const recorder = new RecordPayment(claims, steps, commissions);
  const generate = new GeneratePayouts(payouts, commissions, claims, steps, refresher, presenter);
  const worker = new PaymentWorker(
    steps,
    new CompletePayment(steps, recorder, refresher),
    {
      concurrency: config.PAYOUT_PAY_CONCURRENCY,
      delayMs: config.PAYOUT_PROCESSING_DELAY_MS,
      leaseMs: config.PAYOUT_JOB_LEASE_MS,
      sweepMs: config.PAYOUT_JOB_SWEEP_MS,
    },
    log.child({ component: 'payments' }),
  );
  const pay = new PayPayout(payouts, steps, recorder, refresher, presenter, worker);
  const readModels = new ReadModels(commissions, affiliates, campaigns, claims, refresher);

  const consumers: RunningConsumer[] = [
    await startCommissionConsumer(nc, readModels, log),
    await startAffiliateConsumer(nc, readModels, log),
  ];
  worker.start();
  const scheduler = startGenerateScheduler(generate, config.PAYOUT_GENERATE_INTERVAL_MS, log);

  const subscription: Subscription = serveRpc(
    nc,
    'payout',
    payoutRpc({ queries: new PayoutQueries(payouts, presenter), pay, generate }),
    log,
  );

  const health: HealthServer | undefined = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port }, 'payout service ready');

  return {
    healthPort: health?.port,
    async stop() {
      subscription.unsubscribe();
      await atMost(scheduler.stop(), 1_000);
      // Bounded steps: a server that is gone must not stall shutdown past its deadline.
      await atMost(Promise.all(consumers.map((consumer) => consumer.stop())), 1_500);
      await atMost(worker.stop(), 1_000);
      await atMost(relay.stop(), 1_000);
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      await health?.close();
      await atMost(mongo.close(), 500);
    },
  };
}
