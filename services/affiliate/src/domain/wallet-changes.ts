/**
 * What a requested wallet address does to an affiliate (pure). A new address never replaces the
 * one payouts go to: it waits as `unconfirmed_wallet_<w>_email` until the affiliate follows a
 * link mailed to their account e-mail (wallet-confirmations.ts), so whoever holds a portal
 * session or the API secret cannot redirect the affiliate's money alone.
 */
import type { WalletName } from '@aff/contracts';
import type { AffiliateRecord } from './records';

export const WALLETS: readonly WalletName[] = ['a', 'b'];

export const walletField = (w: WalletName) => `wallet_${w}_email` as const;
export const walletConfirmedField = (w: WalletName) => `wallet_${w}_email_confirmed_at` as const;
export const pendingWalletField = (w: WalletName) => `unconfirmed_wallet_${w}_email` as const;

export interface WalletChangeRequest {
  wallet: WalletName;
  email: string;
}

/**
 * `requested`: the addresses given per wallet (undefined = not given, null = clear it).
 * - the current address again: nothing changes (the portal form sends both wallets each time);
 * - null: the wallet and any pending change are cleared at once (it redirects no money);
 * - any other address (the pending one included, which mails a fresh link): it becomes pending.
 */
export function walletChanges(
  current: AffiliateRecord,
  requested: Partial<Record<WalletName, string | null | undefined>>,
  now: Date,
): { set: Partial<AffiliateRecord>; requests: WalletChangeRequest[] } {
  const set: Partial<AffiliateRecord> = {};
  const requests: WalletChangeRequest[] = [];
  for (const w of WALLETS) {
    const value = requested[w];
    if (value === undefined || value === current[walletField(w)]) continue;
    if (value === null) {
      set[walletField(w)] = null;
      set[walletConfirmedField(w)] = null;
      set[pendingWalletField(w)] = null;
      continue;
    }
    set[pendingWalletField(w)] = value;
    requests.push({ wallet: w, email: value });
  }
  if (Object.keys(set).length > 0) set.updated_at = now;
  return { set, requests };
}

/** Wallets given when the merchant creates the affiliate count as confirmed then (docs/security.md). */
export function initialWallets(
  value: { wallet_a_email?: string | null | undefined; wallet_b_email?: string | null | undefined },
  now: Date,
): Pick<
  AffiliateRecord,
  | 'wallet_a_email'
  | 'wallet_a_email_confirmed_at'
  | 'unconfirmed_wallet_a_email'
  | 'wallet_b_email'
  | 'wallet_b_email_confirmed_at'
  | 'unconfirmed_wallet_b_email'
> {
  const a = value.wallet_a_email ?? null;
  const b = value.wallet_b_email ?? null;
  return {
    wallet_a_email: a,
    wallet_a_email_confirmed_at: a ? now : null,
    unconfirmed_wallet_a_email: null,
    wallet_b_email: b,
    wallet_b_email_confirmed_at: b ? now : null,
    unconfirmed_wallet_b_email: null,
  };
}
