/**
 * Confirming a new wallet address: a single-use link per affiliate and wallet (the newest
 * request wins, only a hash is stored) goes to the affiliate's account e-mail; following it
 * makes the pending address the one payouts go to, and `affiliate.updated` tells the others
 * (the payout service's copy of the affiliate, merchants' webhooks).
 */
import { AppError } from '@aff/api';
import { buildEvent, type WalletName } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateStore, CallContext, WalletConfirmationStore } from './ports';
import type { AffiliateRecord } from './records';
import { pendingWalletField, walletConfirmedField, walletField } from './wallet-changes';
import { hashLinkToken, newLinkToken } from './link-tokens';

const INVALID = 'This confirmation link is invalid, used, expired or replaced by a newer one.';

export interface IssuedWalletConfirmation {
  affiliate: AffiliateRecord;
  token: string;
  expires_at: Date;
}

export interface ConfirmedWallet {
  affiliate: { id: string; first_name: string };
  wallet: WalletName;
  email: string;
}

export class WalletConfirmations {
  constructor(
    private readonly tokens: WalletConfirmationStore,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A fresh link for `email`, or null when it is no longer the address awaiting confirmation. */
  async issue(
    merchantId: string,
    affiliateId: string,
    wallet: WalletName,
    email: string,
  ): Promise<IssuedWalletConfirmation | null> {
    const affiliate = await this.affiliates.findById(merchantId, affiliateId);
    if (!affiliate || affiliate[pendingWalletField(wallet)] !== email) return null;
    const token = newLinkToken();
    const expires = new Date(this.now().getTime() + this.ttlMs);
    await this.tokens.replace({
      _id: `${affiliateId}:${wallet}`,
      merchant_id: merchantId,
      affiliate_id: affiliateId,
      wallet,
      email,
      token_hash: hashLinkToken(token),
      expires_at: expires,
      used_at: null,
    });
    return { affiliate, token, expires_at: expires };
  }

  /** Uses the link once: the pending address becomes the wallet, confirmed now. */
  async confirm(token: string, ctx: Pick<CallContext, 'events'>): Promise<ConfirmedWallet> {
    const now = this.now();
    const claimed = token ? await this.tokens.claim(hashLinkToken(token), now) : null;
    if (!claimed) throw new AppError('not_found', INVALID);
    const { merchant_id: merchantId, wallet, email } = claimed;
    const current = await this.affiliates.findById(merchantId, claimed.affiliate_id);
    if (!current || current[pendingWalletField(wallet)] !== email)
      throw new AppError('not_found', INVALID);
    const set: Partial<AffiliateRecord> = {
      [walletField(wallet)]: email,
      [walletConfirmedField(wallet)]: now,
      [pendingWalletField(wallet)]: null,
      updated_at: now,
    };
    const view = await this.presenter.presentOne(merchantId, { ...current, ...set });
    // Only if the address is still the pending one: a newer change in between wins.
    const updated = await this.affiliates.updateWithEvents(
      merchantId,
      current._id,
      set,
      [buildEvent('affiliate.updated', merchantId, view)],
      ctx.events,
      { [pendingWalletField(wallet)]: email },
    );
    if (!updated) throw new AppError('not_found', INVALID);
    return { affiliate: { id: current._id, first_name: current.first_name }, wallet, email };
  }
}
