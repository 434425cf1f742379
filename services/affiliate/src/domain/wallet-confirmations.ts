/**
 * Confirming a new wallet address (the flow: confirmation-flow.ts): the link goes to the
 * affiliate's account e-mail, one per affiliate and wallet; following it makes the pending
 * address the one payouts go to, and `affiliate.updated` tells the others (the payout service's
 * copy of the affiliate, merchants' webhooks).
 */
import { buildEvent, type WalletName } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import {
  ConfirmationFlow,
  type ConfirmationKind,
  type IssuedConfirmation,
} from './confirmation-flow';
import type { AffiliateStore, WalletConfirmationStore } from './ports';
import type { AffiliateRecord, WalletConfirmationRecord } from './records';
import { pendingWalletField, walletConfirmedField, walletField } from './wallet-changes';

export interface ConfirmedWallet {
  affiliate: { id: string; first_name: string };
  wallet: WalletName;
  email: string;
}

const walletKind: ConfirmationKind<WalletConfirmationRecord, WalletName, ConfirmedWallet> = {
  pendingField: pendingWalletField,
  record: ({ merchantId, affiliateId, target: wallet, email }, token) => ({
    _id: `${affiliateId}:${wallet}`,
    merchant_id: merchantId,
    affiliate_id: affiliateId,
    wallet,
    email,
    ...token,
    used_at: null,
  }),
  pendingOf: (claimed) => ({
    merchantId: claimed.merchant_id,
    affiliateId: claimed.affiliate_id,
    target: claimed.wallet,
    email: claimed.email,
  }),
  async confirm({ pending, current, now, apply }) {
    const { merchantId, target: wallet, email } = pending;
    const set: Partial<AffiliateRecord> = {
      [walletField(wallet)]: email,
      [walletConfirmedField(wallet)]: now,
      [pendingWalletField(wallet)]: null,
      updated_at: now,
    };
    await apply(set, (view) => [buildEvent('affiliate.updated', merchantId, view)]);
    return { affiliate: { id: current._id, first_name: current.first_name }, wallet, email };
  },
};

export class WalletConfirmations extends ConfirmationFlow<
  WalletConfirmationRecord,
  WalletName,
  ConfirmedWallet
> {
  constructor(
    tokens: WalletConfirmationStore,
    affiliates: AffiliateStore,
    presenter: AffiliatePresenter,
    ttlMs: number,
    now?: () => Date,
  ) {
    super(walletKind, tokens, affiliates, presenter, ttlMs, now);
  }

  /** A fresh link for `email`, or null when it is no longer the address awaiting confirmation. */
  issue(
    merchantId: string,
    affiliateId: string,
    wallet: WalletName,
    email: string,
  ): Promise<IssuedConfirmation | null> {
    return this.issueFor({ merchantId, affiliateId, target: wallet, email });
  }
}
