/** Wiring of the affiliate service: its models and object graph; the kernel runs it. */
import { STREAMS } from '@aff/contracts';
import { defineService, type ServiceDeps } from '@aff/kernel';
import { startConsumer } from '@aff/messaging';
import { TenantRepository, retentionJob } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadAffiliateConfig, type AffiliateConfig } from './config';
import { moneyCountersConsumer } from './consumers/derived-counters.consumer';
import { referralCountsConsumer } from './consumers/referral-counts.consumer';
import { affiliateModel } from './data/affiliate.schema';
import { AffiliateRepository } from './data/affiliate.repository';
import { AffiliateStateCounts, affiliateStateCountModel } from './data/affiliate-state-counts';
import { CampaignRepository } from './data/campaign.repository';
import { StatsFactsRepository } from './data/stats-facts.repository';
import { CouponRepository } from './data/coupon.repository';
import { factModels } from './data/facts.schema';
import { LinkRepository } from './data/link.repository';
import { OneTimeTokenRepository } from './data/one-time-token.repository';
import { DerivedCounters } from './domain/derived-counters';
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

/** How often `commission_stats` is checked against its facts and repaired. */
const COUNTER_REPAIR_MS = 30_000;

export const affiliateModels = (mongo: Connection) => ({
  campaign: campaignModel(mongo),
  affiliate: affiliateModel(mongo),
  stateCounts: affiliateStateCountModel(mongo),
  link: linkModel(mongo),
  coupon: couponModel(mongo),
  ssoToken: ssoTokenModel(mongo),
  emailConfirmation: emailConfirmationModel(mongo),
  walletConfirmation: walletConfirmationModel(mongo),
  sentMail: sentMailModel(mongo),
  facts: factModels(mongo),
});
type AffiliateModels = ReturnType<typeof affiliateModels>;

export function buildAffiliate(deps: ServiceDeps<AffiliateConfig, AffiliateModels>) {
  const { config, log, models, nc, relay } = deps;
  // Tenant repositories relay the events their writes queue; use cases never see the relay.
  const campaigns = new CampaignRepository(new TenantRepository(models.campaign, { relay }));
  const stateCounts = new AffiliateStateCounts(models.stateCounts, models.affiliate, (err) =>
    log.warn({ err }, 'affiliate written but its state not counted'),
  );
  const affiliates = new AffiliateRepository(
    new TenantRepository(models.affiliate, { relay }),
    stateCounts,
  );
  const links = new LinkRepository(new TenantRepository(models.link, { relay }));
  const coupons = new CouponRepository(new TenantRepository(models.coupon, { relay }));

  const campaignUseCases = new CampaignUseCases(campaigns, config.DEFAULT_CAMPAIGN_URL);
  const linkUseCases = new LinkUseCases(links, affiliates, campaigns);
  const presenter = new AffiliatePresenter(campaigns, links);
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

  const derived = new DerivedCounters(new StatsFactsRepository(models.facts, affiliates));
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
      () =>
        startConsumer(nc, {
          stream: STREAMS.commission.name,
          durable: 'affiliate-commission-stats',
          ...moneyCountersConsumer(derived),
          log,
        }),
      () => mail.start(nc),
    ],
    intervals: [
      { everyMs: COUNTER_REPAIR_MS, run: () => derived.repair(), failure: 'counter repair failed' },
      retentionJob(affiliateRetention(models), config.RETENTION_PRUNE_MS),
    ],
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
        new ProgramFiguresRepository(models.affiliate, stateCounts),
        affiliates,
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
