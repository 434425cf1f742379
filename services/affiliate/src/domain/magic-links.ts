/**
 * One-time sign-in links for the affiliate portal: valid one minute, usable once, and a newer
 * link of the same affiliate invalidates every older one.
 */
import { AppError, errors } from '@aff/api';
import type { AffiliateStore, SsoTokenStore } from './ports';
import type { AffiliateRecord } from './records';
import { hashLinkToken, newLinkToken } from './link-tokens';

export const MAGIC_LINK_TTL_MS = 60_000;

export interface MagicLink {
  sso: { url: string; expires: string };
  affiliate: { id: string; email: string };
}

export class MagicLinks {
  constructor(
    private readonly tokens: SsoTokenStore,
    private readonly affiliates: AffiliateStore,
    private readonly publicUrl: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async issue(merchantId: string, affiliateId: string): Promise<MagicLink> {
    const affiliate = await this.affiliates.findById(merchantId, affiliateId);
    if (!affiliate) throw errors.notFound('Affiliate', affiliateId);
    const token = newLinkToken();
    const expires = new Date(this.now().getTime() + MAGIC_LINK_TTL_MS);
    await this.tokens.replace({
      _id: affiliate._id,
      merchant_id: merchantId,
      token_hash: hashLinkToken(token),
      expires_at: expires,
      used_at: null,
    });
    const url = new URL('/portal/sso', this.publicUrl);
    url.searchParams.set('token', token);
    return {
      sso: { url: url.toString(), expires: expires.toISOString() },
      affiliate: { id: affiliate._id, email: affiliate.email },
    };
  }

  /** Uses the link: the first caller gets the affiliate, every later one (or a stale link) a 401. */
  async redeem(token: string): Promise<AffiliateRecord> {
    const now = this.now();
    const claimed = await this.tokens.claim(hashLinkToken(token), now);
    const affiliate = claimed && (await this.affiliates.findById(claimed.merchant_id, claimed._id));
    if (!affiliate)
      throw new AppError('unauthorized', 'This sign-in link is invalid, used or expired.');
    await this.affiliates.countSignIn(affiliate.merchant_id, affiliate._id);
    return { ...affiliate, sign_in_count: affiliate.sign_in_count + 1 };
  }
}
