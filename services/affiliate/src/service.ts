/** Wiring of the affiliate service: its models and object graph; the kernel runs it. */
import { STREAMS } from '@aff/contracts';
import { defineService, type ServiceDeps } from '@aff/kernel';
import { RpcClient, startConsumer } from '@aff/messaging';
import { TenantRepository, repairLeftoversWith, retentionJob } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadAffiliateConfig, type AffiliateConfig } from './config';
import { referralCountsConsumer } from './consumers/referral-counts.consumer';
import { affiliateModel } from './data/affiliate.schema';
import { AffiliateRepository } from './data/affiliate.repository';
import { AffiliateStateCounts, affiliateStateCountModel } from './data/affiliate-state-counts';
import { CampaignRepository } from './data/campaign.repository';
import { CouponRepository } from './data/coupon.repository';
import { LinkRepository } from './data/link.repository';
import { OneTimeTokenRepository } from './data/one-time-token.repository';
import { ReferralCounts } from './domain/referral-counts';
import { campaignModel } from './data/campaign.schema';
import { linkModel } from './data/link.schema';
import { AffiliatePresenter } from './domain/affiliate-presenter';
import { AffiliateUseCases } from './domain/affiliates';
import { CampaignUseCases } from './domain/campaigns';
import { LinkUseCases } from './domain/links';
import { affiliateRpcTable } from './rpc/rpc-table';
import { ProgramStatsUseCase } from './domain/program-stats';
import { ProgramFiguresRepository } from './data/program-figures.repository';
import { TopAffiliates, affiliateTopModel } from './data/top-affiliates';
import { couponModel } from './data/coupon.schema';
import {
  emailConfirmationModel,
  ssoTokenModel,
  walletConfirmationModel,
} from './data/one-time-token.schema';
import { sentMailModel } from './data/sent-mail.schema';
import { affiliateRetention } from './data/retention';
import { CouponUseCases } from './domain/coupons';
import { MagicLinks } from './domain/magic-links';
import { mailModule } from './mail/mail-module';
import { RpcCommissionStats } from './commission-stats-source';

export const affiliateModels = (mongo: Connection) => ({
  campaign: campaignModel(mongo),
  affiliate: affiliateModel(mongo),
  stateCounts: affiliateStateCountModel(mongo),
  top: affiliateTopModel(mongo),
  link: linkModel(mongo),
  coupon: couponModel(mongo),
  ssoToken: ssoTokenModel(mongo),
  emailConfirmation: emailConfirmationModel(mongo),
  walletConfirmation: walletConfirmationModel(mongo),
  sentMail: sentMailModel(mongo),
});
type AffiliateModels = ReturnType<typeof affiliateModels>;

export function buildAffiliate(deps: ServiceDeps<AffiliateConfig, AffiliateModels>) {
  const { config, log, models, nc, relay } = deps;
  // Tenant repositories relay the events their writes queue; use cases never see the relay.
  const campaigns = new CampaignRepository(new TenantRepository(models.campaign, { relay }));
  const stateCounts = new AffiliateStateCounts(models.stateCounts, models.affiliate);
  // A writer that died between an affiliate's write and its count left the write's events
  // pending: the outbox sweep moves the count before relaying them.
  repairLeftoversWith(models.affiliate.collection, (docs) => stateCounts.repairLeftovers(docs));
  // The overview's top affiliates, merged after each batch of raised counters.
  const topAffiliates = new TopAffiliates(models.top, models.affiliate);
  const affiliates = new AffiliateRepository(
    new TenantRepository(models.affiliate, { relay }),
    stateCounts,
    topAffiliates,
  );
  const links = new LinkRepository(new TenantRepository(models.link, { relay }));
  const coupons = new CouponRepository(new TenantRepository(models.coupon, { relay }));

  const campaignUseCases = new CampaignUseCases(campaigns, config.DEFAULT_CAMPAIGN_URL);
  const linkUseCases = new LinkUseCases(links, affiliates, campaigns);
  // `commission_stats` is the commission service's (kept with its writes), asked per view.
  const commissionStats = new RpcCommissionStats(new RpcClient(nc, config.RPC_TIMEOUT_MS));
  const presenter = new AffiliatePresenter(campaigns, links, commissionStats);
  const affiliateUseCases = new AffiliateUseCases(
    affiliates,
    campaignUseCases,
    linkUseCases,
    presenter,
  );

  const mail = mailModule({
    models,
    config,
    affiliates,
    presenter,
    log,
  });

  const referralCounts = new ReferralCounts({
    link: links,
    affiliate: affiliates,
    coupon: coupons,
  });
  return {
    consumers: [
      // Tracking's absolute counts, one event per batch it wrote (the per-referral consumer
      // 'affiliate-referral-counters' and its facts are gone: docs/decisions.md).
      () =>
        startConsumer(nc, {
          stream: STREAMS.tracking.name,
          durable: 'affiliate-referral-counts',
          ...referralCountsConsumer(referralCounts),
          log,
        }),
      // `commission_stats` is no longer derived here from commission and sale events (durable
      // 'affiliate-commission-stats' and its facts are gone): the commission service keeps it.
      () => mail.start(nc),
    ],
    intervals: [retentionJob(affiliateRetention(models), config.RETENTION_PRUNE_MS)],
    rpc: affiliateRpcTable({
      affiliates: affiliateUseCases,
      campaigns: campaignUseCases,
      links: linkUseCases,
      coupons: new CouponUseCases(coupons, affiliates, presenter),
      magicLinks: new MagicLinks(
        new OneTimeTokenRepository(models.ssoToken),
        affiliates,
        config.PUBLIC_URL,
      ),
      emailConfirmations: mail.confirmations,
      walletConfirmations: mail.walletConfirmations,
      programStats: new ProgramStatsUseCase(
        new ProgramFiguresRepository(stateCounts, topAffiliates),
        presenter,
      ),
    }),
  };
}

export const affiliateService = defineService({
  name: 'affiliate',
  configSchema,
  loadConfig: loadAffiliateConfig,
  models: affiliateModels,
  outbox: (models) => [models.campaign, models.affiliate, models.link, models.coupon],
  build: buildAffiliate,
});
