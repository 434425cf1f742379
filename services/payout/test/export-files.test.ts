/**
 * The export file writer, byte for byte: each format against its golden file, the amount in
 * each currency's own units, the formula guard, and the split into parts at the row limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  exportFile,
  fileParts,
  guardCell,
  shortReference,
  type ExportRow,
} from '../src/domain/exports/export-files';
import { formatAmount, minorUnitExponent } from '../src/domain/exports/export-amounts';

const golden = (name: string) => fs.readFileSync(path.join(__dirname, 'golden', name), 'utf8');

/** Three payouts: a plain one, a hostile one (formula cells, quotes, comma), and JPY-like. */
const rows: ExportRow[] = [
  {
    payout_id: '0b6f3d52-7c1e-4a8e-9f6b-2f1d3c4b5a69',
    affiliate_id: '5e0c2a1b-3d4f-4e5a-8b6c-7d8e9f0a1b2c',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    wallet_a_email: 'ada.paypal@example.com',
    wallet_b_email: 'ada.wise@example.com',
    currency: 'USD',
    amount: 2469,
    commission_count: 3,
    created_at: '2025-01-02T03:04:05.000Z',
  },
  {
    payout_id: 'c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f',
    affiliate_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
    first_name: '=HYPERLINK("http://evil.example","x")',
    last_name: 'O\'Brien, "Jr"',
    email: '+tab@example.com',
    wallet_a_email: '@bob@example.com',
    wallet_b_email: '-bob@example.com',
    currency: 'USD',
    amount: 100000,
    commission_count: 1,
    created_at: '2025-01-02T03:04:06.000Z',
  },
  {
    payout_id: 'f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9',
    affiliate_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    first_name: '\tTab',
    last_name: '\rReturn',
    email: 'cr@example.com',
    wallet_a_email: 'cr.paypal@example.com',
    wallet_b_email: null,
    currency: 'USD',
    amount: 5,
    commission_count: 2,
    created_at: '2025-01-02T03:04:07.000Z',
  },
];

describe('export files', () => {
  it('writes paypal_payouts exactly as its golden file (no header, six columns)', () => {
    expect(exportFile('paypal_payouts', rows, 1)).toBe(golden('paypal_payouts.csv'));
  });

  it('writes wise_batch exactly as its golden file (its header line first)', () => {
    expect(exportFile('wise_batch', rows, 1)).toBe(golden('wise_batch.csv'));
  });

  it('writes csv exactly as its golden file (header row, the listed columns)', () => {
    expect(exportFile('csv', rows, 1)).toBe(golden('csv.csv'));
  });

  it('writes amounts in the currency units of its ISO 4217 exponent', () => {
    expect(formatAmount(2469, 'USD')).toBe('24.69');
    expect(formatAmount(1500, 'JPY')).toBe('1500');
    expect(formatAmount(1234, 'KWD')).toBe('1.234');
    expect(formatAmount(5, 'EUR')).toBe('0.05');
    expect(minorUnitExponent('XYZ')).toBeNull();
    const jpy = exportFile('paypal_payouts', [{ ...rows[0]!, currency: 'JPY', amount: 1500 }], 1);
    expect(jpy).toBe(
      'ada.paypal@example.com,1500,JPY,0b6f3d527c1e4a8e9f6b2f1d3c4b5a,Affiliate commission payout,PAYPAL\n',
    );
  });

  it('prefixes every cell that a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(guardCell(`${start}1+1`)).toBe(`'${start}1+1`);
    }
    expect(guardCell('plain')).toBe('plain');
    expect(guardCell('a=b')).toBe('a=b');
  });

  it('keeps references at 30 characters without spaces', () => {
    const reference = shortReference(rows[0]!.payout_id);
    expect(reference).toHaveLength(30);
    expect(reference).not.toMatch(/\s/);
  });

  it('splits into parts at the row limit, every row in exactly one part', () => {
    const limits = { paypal_payouts: 2, wise_batch: 2, csv: 2 };
    expect(fileParts('wise_batch', 3, limits)).toEqual([
      { part: 1, rows: 2 },
      { part: 2, rows: 1 },
    ]);
    const first = exportFile('wise_batch', rows, 1, limits)!.split('\n');
    const second = exportFile('wise_batch', rows, 2, limits)!.split('\n');
    // Each part is a whole file: its own header, its own rows, a final newline.
    expect(first[0]).toBe(second[0]);
    expect(first).toHaveLength(4);
    expect(second).toHaveLength(3);
    expect(second[1]).toContain(shortReference(rows[2]!.payout_id));
    expect(exportFile('wise_batch', rows, 3, limits)).toBeNull();
    expect(exportFile('wise_batch', rows, 0, limits)).toBeNull();
    expect(fileParts('paypal_payouts', 5001)).toEqual([
      { part: 1, rows: 5000 },
      { part: 2, rows: 1 },
    ]);
    expect(fileParts('wise_batch', 1000)).toEqual([{ part: 1, rows: 1000 }]);
    expect(fileParts('csv', 20_000)).toEqual([{ part: 1, rows: 20_000 }]);
  });
});
