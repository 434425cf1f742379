/** Composition root of the tracking service. */
import { atMost, startHealthServer } from '@aff/api';
import { STREAMS } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  OutboxRelay,
  RpcClient,
  connectNats,
  natsReachable,
  ensureStreams,
  serveRpc,
  startConsumer,
  startPartitionedConsumers,
} from '@aff/messaging';
import {
  MongoPendingEventStore,
  NewestIndex,
  ProcessedEvents,
  connectMongo,
  mongoReachable,
} from '@aff/mongo';
import type { TrackingConfig } from './config';
import { CATALOG_SUBJECTS, catalogHandler } from './consumers/catalog.consumer';
import { PROCESSOR_EVENT_TYPE, processorHandler } from './consumers/processor.consumer';
import { CachedCatalogRepository } from './data/catalog-cache';
import { LinkCountsMemory } from './data/link-counts';
import { catalogModels } from './data/catalog.schema';
import { ReferralRepository } from './data/referral.repository';
import { referralModel } from './data/referral.schema';
import { AttributionUseCases } from './domain/attribution';
import { Catalog } from './domain/catalog';
import { ReferralPresenter } from './domain/referral-presenter';
import { ReferralQueries } from './domain/referral-queries';
import { ReferralWriter } from './domain/referral-writer';
import { VisitUseCases } from './domain/visits';
import { RpcLinkDirectory } from './link-directory';
import { trackingRpc } from './rpc/tracking.rpc';

export async function startTrackingService(config: TrackingConfig, log: Logger) {
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, 'tracking', log);
  await ensureStreams(nc);

  const referralsModel = referralModel(mongo);
  const catalogs = catalogModels(mongo);
  await Promise.all([referralsModel.init(), ...Object.values(catalogs).map((m) => m.init())]);
  const referrals = new ReferralRepository(referralsModel);
  // The hot path's read models live in memory, loaded now and kept current by events.
  const catalogRepo = new CachedCatalogRepository(catalogs);
  const linkCounts = new LinkCountsMemory(referralsModel);
  const newest = NewestIndex.of(referralsModel, 'evt.referral.created');
  await Promise.all([catalogRepo.load(), linkCounts.load(), newest.load()]);
  const followers = [
    ...catalogRepo.follow(nc, CATALOG_SUBJECTS, log),
    ...linkCounts.follow(nc, log),
    ...newest.follow(nc, log),
  ];

  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore([referralsModel]),
    log,
  );
  relay.start(config.OUTBOX_SWEEP_MS);

  const catalog = new Catalog(
    catalogRepo,
    new RpcLinkDirectory(new RpcClient(nc, config.RPC_TIMEOUT_MS)),
  );
  const presenter = new ReferralPresenter(linkCounts, catalogRepo);
  const writer = new ReferralWriter(referrals, presenter, relay, newest);
  const visits = new VisitUseCases(referrals, catalog, writer);
  const attribution = new AttributionUseCases(
    referrals,
    catalog,
    writer,
    new ProcessedEvents(mongo),
    config.PROCESSOR_PLATFORM_NAME,
  );

  const consumers = [
    await startConsumer(nc, {
      stream: STREAMS.affiliate.name,
      durable: 'tracking-catalog',
      filterSubjects: CATALOG_SUBJECTS,
      // Versions of one record in order; the read models also keep only the newest.
      orderingKey: (event) => String((event.data as { id?: unknown }).id ?? event.id),
      handle: catalogHandler(catalogRepo),
      log,
    }),
    // In order per processor customer, across replicas: a charge must find the referral its
    // customer event attached, and a refund must not overtake the charge it refunds.
    await startPartitionedConsumers(nc, {
      stream: STREAMS.gateway.name,
      durablePrefix: 'tracking-processor',
      type: PROCESSOR_EVENT_TYPE,
      handle: processorHandler(attribution),
      log,
    }),
  ];
  const subscription = serveRpc(
    nc,
    'tracking',
    trackingRpc({
      visits,
      queries: new ReferralQueries(referrals, presenter, newest),
      referrals,
      presenter,
    }),
    log,
  );
  const health = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port }, 'tracking service ready');

  return {
    async stop() {
      subscription.unsubscribe();
      for (const follower of followers) follower.unsubscribe();
      // Bounded steps: a server that is gone must not stall shutdown past its deadline.
      await atMost(Promise.all(consumers.map((consumer) => consumer.stop())), 1_500);
      await atMost(relay.stop(), 1_000);
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      await health?.close();
      await atMost(mongo.close(), 500);
    },
  };
}
