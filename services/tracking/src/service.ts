/** Wiring of the tracking service: its models and object graph; the kernel runs it. */
import { STREAMS, VISIT_INTAKE, buildEvent } from '@aff/contracts';
import { defineService, type ServiceDeps } from '@aff/kernel';
import {
  EventPublisher,
  RpcClient,
  startConsumer,
  startPartitionedConsumers,
} from '@aff/messaging';
import {
  MerchantCounts,
  NEWEST_KEPT,
  NewestList,
  ProcessedEvents,
  TenantRepository,
  merchantCountsModel,
  processedEventModel,
  retentionJob,
} from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadTrackingConfig, type TrackingConfig } from './config';
import { catalogConsumer } from './consumers/catalog.consumer';
import { signInsConsumer } from './consumers/sign-ins.consumer';
import { AddressFactsRepository, addressFactModels } from './data/address-facts.repository';
import { PROCESSOR_EVENT_TYPE, processorConsumer } from './consumers/processor.consumer';
import { CachedCatalogRepository } from './data/catalog-cache';
import { StoredLinkCounts } from './data/link-counts';
import { countInserts } from './data/count-inserts';
import { ReferralTallies } from './data/referral-tallies';
import { tallyModels } from './data/referral-tally.schema';
import { SWEEP_EVERY_MS, TallySweep } from './data/tally-sweep';
import {
  MERCHANT_BACKFILL_EVERY_MS,
  MerchantCountsBackfill,
} from './data/merchant-counts-backfill';
import { catalogModels } from './data/catalog.schema';
import { ReferralRepository } from './data/referral.repository';
import { referralModel } from './data/referral.schema';
import { ReferralHistoryCounts } from './data/referral-history';
import { JetStreamVisitQueue } from './data/visit-queue';
import { AttributionUseCases } from './domain/attribution';
import { Catalog } from './domain/catalog';
import { ReferralPresenter } from './domain/referral-presenter';
import { ReferralQueries } from './domain/referral-queries';
import { ReferralReviews } from './domain/referral-review';
import { FraudCheck } from './domain/fraud-check';
import { ReferralWriter } from './domain/referral-writer';
import { VisitUseCases } from './domain/visits';
import { VisitIntake } from './domain/visit-intake';
import { ReferralsWithIntake } from './domain/referrals-with-intake';
import { RpcAffiliateDirectory } from './affiliate-directory';
import { trackingRpcTable } from './rpc/rpc-table';

export const trackingModels = (mongo: Connection) => ({
  referral: referralModel(mongo),
  catalog: catalogModels(mongo),
  addressFacts: addressFactModels(mongo),
  referralCounts: merchantCountsModel(mongo, 'referral_counts'),
  tallies: tallyModels(mongo),
  processed: processedEventModel(mongo),
});
type TrackingModels = ReturnType<typeof trackingModels>;

/** Accepted visits written at once by the intake consumer (their inserts share one insertMany). */
const INTAKE_CONCURRENCY = 64;

export function buildTracking(deps: ServiceDeps<TrackingConfig, TrackingModels>) {
  const { config, log, models, nc, relay } = deps;
  const referralsModel = models.referral;
  // The catalog lives in memory, loaded at start and kept current by events; link counts are
  // stored counters, read per referral shown (nothing per record is read at start).
  const catalogRepo = new CachedCatalogRepository(models.catalog);
  const linkCounts = new StoredLinkCounts(models.tallies.link);
  const counts = new MerchantCounts(models.referralCounts, NEWEST_KEPT);
  const newest = new NewestList(referralsModel, counts);
  const publisher = new EventPublisher(nc);
  // Exact referral counts per link, affiliate and coupon, published once per batch.
  const tallies = new ReferralTallies(
    models.tallies,
    (merchantId, data) =>
      publisher.publish(buildEvent('referral_counts.updated', merchantId, { counts: data })),
    (err: unknown) => log.warn({ err }, 'referral counts settled but not published yet'),
  );
  // Relays the events its writes queue and keeps `newest` current; use cases never see either.
  const onCountFailed = (err: unknown) => log.warn({ err }, 'referrals written but not counted');
  const tenant = new TenantRepository(referralsModel, {
    relay,
    counts,
    countBatch: countInserts(tallies),
    onCountFailed,
  });
  const stored = new ReferralRepository(tenant, newest, tallies, onCountFailed);
  const backfill = new MerchantCountsBackfill(models.tallies);
  const sweep = new TallySweep(tallies, (merchantId, ids) => stored.marksOf(merchantId, ids));

  const catalog = new Catalog(
    catalogRepo,
    new RpcAffiliateDirectory(new RpcClient(nc, config.RPC_TIMEOUT_MS)),
  );
  const presenter = new ReferralPresenter(linkCounts, catalogRepo);
  const writer = new ReferralWriter(stored, presenter);
  // Durable-first visit intake: visits are queued in JetStream and written in batches; readers
  // see queued referrals too (ReferralsWithIntake), so every use case reads through it.
  const queue = new JetStreamVisitQueue(nc, config.RPC_TIMEOUT_MS);
  const intake = new VisitIntake(stored, writer, async (events, context) => {
    for (const event of events) await publisher.publish(event, context);
  });
  const referrals = new ReferralsWithIntake(stored, queue, intake);
  const addressFacts = new AddressFactsRepository(models.addressFacts);
  const fraud = new FraudCheck(addressFacts);
  const visits = new VisitUseCases(referrals, catalog, writer, queue, fraud);
  const processed = new ProcessedEvents(models.processed, (error) =>
    log.warn({ err: (error as Error).message }, 'processor event applied but not recorded'),
  );
  const attribution = new AttributionUseCases(
    referrals,
    catalog,
    writer,
    processed,
    config.PROCESSOR_PLATFORM_NAME,
    fraud,
  );

  return {
    visits,
    attribution,
    load: async () => {
      await catalogRepo.load();
    },
    follow: () => catalogRepo.follow(nc, log),
    consumers: [
      () =>
        queue.consume(async (visit) => void (await intake.write(visit)), {
          durable: VISIT_INTAKE.durable,
          concurrency: INTAKE_CONCURRENCY,
          log,
        }),
      () =>
        startConsumer(nc, {
          stream: STREAMS.affiliate.name,
          durable: 'tracking-catalog',
          ...catalogConsumer(catalogRepo),
          log,
        }),
      () =>
        startConsumer(nc, {
          stream: STREAMS.affiliate.name,
          durable: 'tracking-sign-ins',
          ...signInsConsumer(addressFacts),
          log,
        }),
      // In order per processor customer, across replicas: a charge must find the referral its
      // customer event attached, and a refund must not overtake the charge it refunds.
      () =>
        startPartitionedConsumers(nc, {
          stream: STREAMS.gateway.name,
          durablePrefix: 'tracking-processor',
          type: PROCESSOR_EVENT_TYPE,
          ...processorConsumer(attribution),
          log,
        }),
    ],
    intervals: [
      { everyMs: SWEEP_EVERY_MS, run: () => sweep.run(), failure: 'referral count sweep failed' },
      {
        // Referral history from before the merchant's count document, once (the overview).
        everyMs: MERCHANT_BACKFILL_EVERY_MS,
        run: () => backfill.run(),
        failure: 'merchant referral count backfill failed',
        atStart: true,
      },
      retentionJob([processed.retention, ...addressFacts.retention], config.RETENTION_PRUNE_MS),
    ],
    rpc: trackingRpcTable({
      visits,
      queries: new ReferralQueries(referrals, presenter),
      referrals,
      presenter,
      reviews: new ReferralReviews(referrals, writer),
      totals: tallies,
      history: new ReferralHistoryCounts(referralsModel),
    }),
  };
}

export const trackingService = defineService({
  name: 'tracking',
  configSchema,
  loadConfig: loadTrackingConfig,
  models: trackingModels,
  workQueues: [VISIT_INTAKE],
  // Only referrals carry events; the catalog copies are read models.
  outbox: (models) => [models.referral],
  build: buildTracking,
});
