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
  startConsumer,
  type NatsConnection,
  type Subscription,
} from '@aff/messaging';
import { MongoPendingEventStore, TenantRepository, connectMongo, mongoReachable } from '@aff/mongo';
import type { AffiliateConfig } from './config';
import { STREAMS } from '@aff/contracts';
import {
  MONEY_SUBJECTS,
  REFERRAL_SUBJECTS,
  counterOrderingKey,
  derivedCountersHandler,
} from './consumers/derived-counters.consumer';
import { affiliateModel } from './data/affiliate.schema';
import { factModels } from './data/facts.schema';
import { DerivedCounters } from './domain/derived-counters';
import { campaignModel } from './data/campaign.schema';
import { linkModel } from './data/link.schema';
import { AffiliatePresenter } from './domain/affiliate-presenter';
import { AffiliateUseCases } from './domain/affiliates';
import { CampaignUseCases } from './domain/campaigns';
import { LinkUseCases } from './domain/links';
import { affiliateRpc } from './rpc/affiliate.rpc';
import { campaignRpc } from './rpc/campaign.rpc';
import { linkRpc } from './rpc/link.rpc';
import { couponRpc, magicLinkRpc } from './rpc/coupon.rpc';
import { couponModel } from './data/coupon.schema';
import { ssoTokenModel } from './data/sso-token.schema';
import { CouponUseCases } from './domain/coupons';
import { MagicLinks } from './domain/magic-links';
import { mailModule } from './mail/mail-module';

export interface RunningService {
  healthPort: number | undefined;
  stop(): Promise<void>;
}

export async function startAffiliateService(
  config: AffiliateConfig,
  log: Logger,
): Promise<RunningService> {
  const mongo: Connection = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc: NatsConnection = await connectNats(config.NATS_URL, 'affiliate', log);
  await ensureStreams(nc);

  const models = {
    campaign: campaignModel(mongo),
    affiliate: affiliateModel(mongo),
    link: linkModel(mongo),
    coupon: couponModel(mongo),
  };
  await Promise.all(Object.values(models).map((model) => model.init()));
  const ssoTokens = ssoTokenModel(mongo);
  await ssoTokens.init();
  const campaigns = new TenantRepository(models.campaign);
  const affiliates = new TenantRepository(models.affiliate);
  const links = new TenantRepository(models.link);

  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore(Object.values(models)),
    log,
  );
  relay.start(config.OUTBOX_SWEEP_MS);

  const campaignUseCases = new CampaignUseCases(campaigns, relay, config.DEFAULT_CAMPAIGN_URL);
  const linkUseCases = new LinkUseCases(links, affiliates, campaigns, relay);
  const affiliateUseCases = new AffiliateUseCases(
    affiliates,
    campaignUseCases,
    linkUseCases,
    new AffiliatePresenter(campaigns, links),
    relay,
  );

  const mail = await mailModule({
    mongo,
    config,
    affiliates,
    presenter: new AffiliatePresenter(campaigns, links),
    relay,
    log,
  });
  const subscription: Subscription = serveRpc(
    nc,
    'affiliate',
    {
      ...affiliateRpc(affiliateUseCases),
      ...campaignRpc(campaignUseCases),
      ...linkRpc(linkUseCases),
      ...couponRpc(new CouponUseCases(new TenantRepository(models.coupon), affiliates, relay)),
      ...magicLinkRpc(new MagicLinks(ssoTokens, affiliates, config.PUBLIC_URL)),
      ...mail.rpc,
    },
    log,
  );

  const facts = factModels(mongo);
  await Promise.all(Object.values(facts).map((model) => model.init()));
  const derived = new DerivedCounters(facts, models.affiliate, models.link, models.coupon);
  const counters = derivedCountersHandler(derived);
  const consumers = [
    await startConsumer(nc, {
      stream: STREAMS.tracking.name,
      durable: 'affiliate-referral-counters',
      filterSubjects: REFERRAL_SUBJECTS,
      orderingKey: counterOrderingKey,
      handle: counters,
      log,
    }),
    await startConsumer(nc, {
      stream: STREAMS.commission.name,
      durable: 'affiliate-commission-stats',
      filterSubjects: MONEY_SUBJECTS,
      orderingKey: counterOrderingKey,
      handle: counters,
      log,
    }),
    ...(await mail.start(nc)),
  ];
  let repairing = false;
  const repairTimer = setInterval(() => {
    if (repairing) return;
    repairing = true;
    derived
      .repair()
      .catch((err: unknown) => log.warn({ err }, 'counter repair failed'))
      .finally(() => {
        repairing = false;
      });
  }, 30_000);
  repairTimer.unref();

  const health: HealthServer | undefined = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port }, 'affiliate service ready');

  return {
    healthPort: health?.port,
    async stop() {
      clearInterval(repairTimer);
      subscription.unsubscribe();
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
