/**
 * Which payouts a format can pay, as plain functions. A wallet counts only once the affiliate
 * confirmed it (`wallet_*_email_confirmed_at`, DESIGN.md section 2): a hijacked portal session
 * cannot redirect money. Wallet A is the PayPal one (`paypal_payouts`), wallet B the Wise one
 * (`wise_batch`). `csv` needs nothing beyond the account e-mail every affiliate has: it is the
 * merchant's own sheet (a bank run, a spreadsheet), and it shows only confirmed wallets.
 */
import type { AffiliateView, PayoutExportFormat, PayoutExportSkipReason } from '@aff/contracts';
import type { PayoutRecord } from '../records';
import type { StoredExportRow } from './export-ports';

type Wallets = Pick<
  AffiliateView,
  | 'first_name'
  | 'last_name'
  | 'email'
  | 'wallet_a_email'
  | 'wallet_a_email_confirmed_at'
  | 'wallet_b_email'
  | 'wallet_b_email_confirmed_at'
>;

/** The affiliate's wallet e-mail if it is confirmed, else null. */
export function confirmedWallet(affiliate: Wallets | null, wallet: 'a' | 'b'): string | null {
  if (!affiliate) return null;
  const email = wallet === 'a' ? affiliate.wallet_a_email : affiliate.wallet_b_email;
  const confirmedAt =
    wallet === 'a' ? affiliate.wallet_a_email_confirmed_at : affiliate.wallet_b_email_confirmed_at;
  return email && confirmedAt ? email : null;
}

const WALLET_OF: Record<PayoutExportFormat, 'a' | 'b' | null> = {
  paypal_payouts: 'a',
  wise_batch: 'b',
  csv: null,
};

/** Why the format cannot pay this affiliate; null when it can. */
export function walletProblem(
  format: PayoutExportFormat,
  affiliate: Wallets | null,
): PayoutExportSkipReason | null {
  const wallet = WALLET_OF[format];
  if (wallet === null) return null;
  if (confirmedWallet(affiliate, wallet)) return null;
  const email = wallet === 'a' ? affiliate?.wallet_a_email : affiliate?.wallet_b_email;
  return email ? 'wallet_unconfirmed' : 'wallet_missing';
}

/** Why a payout asked for by id cannot be taken (before its wallet is looked at). */
export function payoutProblem(
  payout: Pick<PayoutRecord, 'state' | 'currency' | 'export_id'> | undefined,
  currency: string,
): PayoutExportSkipReason | null {
  if (!payout) return 'not_found';
  if (payout.currency !== currency) return 'currency_mismatch';
  if (payout.export_id) return 'in_other_export';
  if (payout.state !== 'due') return 'not_due';
  return null;
}

/** The row an export freezes for a payout it took. */
export function exportRow(payout: PayoutRecord, affiliate: Wallets | null): StoredExportRow {
  return {
    payout_id: payout._id,
    affiliate_id: payout.affiliate_id,
    first_name: affiliate?.first_name ?? '',
    last_name: affiliate?.last_name ?? '',
    email: affiliate?.email ?? '',
    wallet_a_email: confirmedWallet(affiliate, 'a'),
    wallet_b_email: confirmedWallet(affiliate, 'b'),
    currency: payout.currency,
    amount: payout.amount,
    commission_count: payout.commission_count,
    created_at: new Date(payout.created_at).toISOString(),
    commission_ids: payout.commission_ids,
  };
}
