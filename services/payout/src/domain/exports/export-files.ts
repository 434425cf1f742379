/**
 * The mass-payment files of an export, byte for byte (DESIGN.md section 3, "Payout exports"):
 * pure functions of the export's frozen rows, so the same export always gives the same bytes.
 */
import { stringify } from 'csv-stringify/sync';
import type { PayoutExportFormat } from '@aff/contracts';
import { formatAmount } from './export-amounts';

/** One payout as the export froze it when it was made. */
export interface ExportRow {
  payout_id: string;
  affiliate_id: string;
  first_name: string;
  last_name: string;
  email: string;
  /** Only a confirmed wallet is ever written; null otherwise. */
  wallet_a_email: string | null;
  wallet_b_email: string | null;
  currency: string;
  /** Minor units (cents). */
  amount: number;
  commission_count: number;
  /** The payout's `created_at` (ISO 8601). */
  created_at: string;
}

/** Rows per file that each service takes (PayPal Payouts: 5,000; Wise batch: 1,000). */
export const ROW_LIMITS: Readonly<Record<PayoutExportFormat, number>> = {
  paypal_payouts: 5000,
  wise_batch: 1000,
  csv: Number.POSITIVE_INFINITY,
};

export const WISE_HEADER = [
  'name',
  'recipientEmail',
  'paymentReference',
  'receiverType',
  'amountCurrency',
  'amount',
  'sourceCurrency',
  'targetCurrency',
];

export const CSV_HEADER = [
  'payout_id',
  'affiliate_id',
  'first_name',
  'last_name',
  'email',
  'wallet_a_email',
  'wallet_b_email',
  'currency',
  'amount',
  'commission_count',
  'created_at',
];

export const PAYPAL_NOTE = 'Affiliate commission payout';
const REFERENCE_LENGTH = 30;

/**
 * The payout's short id: its UUID without dashes, cut to 30 characters (PayPal's limit for a
 * reference, no spaces); 120 random bits, so no two payouts share one.
 */
export function shortReference(payoutId: string): string {
  return payoutId.replace(/[^0-9A-Za-z]/g, '').slice(0, REFERENCE_LENGTH);
}

/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as
 * a formula; a leading `'` makes it text (OWASP's CSV injection advice).
 */
export function guardCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** The files an export of `rowCount` rows is split into: part numbers from 1, rows in each. */
export function fileParts(
  format: PayoutExportFormat,
  rowCount: number,
  limits: Readonly<Record<PayoutExportFormat, number>> = ROW_LIMITS,
): { part: number; rows: number }[] {
  const limit = limits[format];
  const parts: { part: number; rows: number }[] = [];
  for (let start = 0; start < rowCount; start += limit) {
    parts.push({ part: parts.length + 1, rows: Math.min(limit, rowCount - start) });
  }
  return parts;
}

/** File `part` (from 1) of an export; null when there is no such part. */
export function exportFile(
  format: PayoutExportFormat,
  rows: readonly ExportRow[],
  part: number,
  limits: Readonly<Record<PayoutExportFormat, number>> = ROW_LIMITS,
): string | null {
  const limit = limits[format];
  if (!Number.isInteger(part) || part < 1 || (part - 1) * limit >= rows.length) return null;
  const slice = rows.slice((part - 1) * limit, part * limit);
  const records = slice.map((row) => cellsOf(format, row));
  if (format === 'wise_batch') records.unshift(WISE_HEADER);
  if (format === 'csv') records.unshift(CSV_HEADER);
  return stringify(
    records.map((cells) => cells.map(guardCell)),
    // A lone carriage return ends a line in a spreadsheet: quote it like a newline.
    { record_delimiter: 'unix', eof: true, quoted_match: /\r/ },
  );
}

function cellsOf(format: PayoutExportFormat, row: ExportRow): string[] {
  const amount = formatAmount(row.amount, row.currency);
  switch (format) {
    case 'paypal_payouts':
      return [
        row.wallet_a_email ?? '',
        amount,
        row.currency,
        shortReference(row.payout_id),
        PAYPAL_NOTE,
        'PAYPAL',
      ];
    case 'wise_batch':
      return [
        // Not trimmed: a leading tab or return must reach the formula guard.
        [row.first_name, row.last_name].filter(Boolean).join(' '),
        row.wallet_b_email ?? '',
        shortReference(row.payout_id),
        'PERSON',
        'target',
        amount,
        row.currency,
        row.currency,
      ];
    case 'csv':
      return [
        row.payout_id,
        row.affiliate_id,
        row.first_name,
        row.last_name,
        row.email,
        row.wallet_a_email ?? '',
        row.wallet_b_email ?? '',
        row.currency,
        amount,
        String(row.commission_count),
        row.created_at,
      ];
    default:
      return assertNever(format);
  }
}

function assertNever(value: never): never {
  throw new Error(`unknown export format ${String(value)}`);
}
