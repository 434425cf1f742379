/**
 * The affiliate service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. A new entry-point module
 * is spread in here, so both see it.
 */
import type { RpcHandlers } from '@aff/messaging';
import type { AffiliateUseCases } from '../domain/affiliates';
import type { CampaignUseCases } from '../domain/campaigns';
import type { CouponUseCases } from '../domain/coupons';
import type { EmailConfirmations } from '../domain/email-confirmations';
import type { LinkUseCases } from '../domain/links';
import type { MagicLinks } from '../domain/magic-links';
import type { ProgramStatsUseCase } from '../domain/program-stats';
import type { WalletConfirmations } from '../domain/wallet-confirmations';
import { affiliateRpc } from './affiliate.rpc';
import { campaignRpc } from './campaign.rpc';
import { couponRpc, magicLinkRpc } from './coupon.rpc';
import { emailRpc } from './email.rpc';
import { linkRpc } from './link.rpc';
import { programStatsRpc } from './program-stats.rpc';

export interface AffiliateRpcUseCases {
  affiliates: AffiliateUseCases;
  campaigns: CampaignUseCases;
  links: LinkUseCases;
  coupons: CouponUseCases;
  magicLinks: MagicLinks;
  emailConfirmations: EmailConfirmations;
  walletConfirmations: WalletConfirmations;
  programStats: ProgramStatsUseCase;
}

export function affiliateRpcTable(useCases: AffiliateRpcUseCases): RpcHandlers<'affiliate'> {
  return {
    ...affiliateRpc(useCases.affiliates),
    ...campaignRpc(useCases.campaigns),
    ...linkRpc(useCases.links),
    ...couponRpc(useCases.coupons),
    ...magicLinkRpc(useCases.magicLinks),
    ...emailRpc(useCases.emailConfirmations, useCases.walletConfirmations),
    ...programStatsRpc(useCases.programStats),
  };
}
