/**
 * `commission_stats` (pure): what a commission or a sale adds to its affiliate's and its
 * merchant's figures, the change a write makes to them, and how stored figures are shown.
 * Per currency: unpaid = pending + due, due, paid, total = unpaid + paid (voided counts
 * nowhere), gross_revenue = charged amounts of referred sales, net_revenue = after tax and
 * refunds. The figures are kept by the commission service with its own writes (see
 * data/stats-tally.ts); the affiliate service asks for them.
 */
import type { CommissionStats } from '@aff/contracts';
import type { CommissionRecord, SaleRecord } from './records';

export const STAT_KEYS = [
  'unpaid',
  'due',
  'paid',
  'total',
  'gross_revenue',
  'net_revenue',
] as const;
export type StatKey = (typeof STAT_KEYS)[number];
/** Cents per key, in `STAT_KEYS` order. */
export type StatVector = number[];

export const ZERO_STATS: StatVector = STAT_KEYS.map(() => 0);

/** What one commission counts for (nothing when voided, or when there is none). */
export function commissionFigures(
  c: Pick<CommissionRecord, 'state' | 'amount'> | null,
): StatVector {
  if (!c || c.state === 'voided') return [...ZERO_STATS];
  const paid = c.state === 'paid';
  return [
    paid ? 0 : c.amount,
    c.state === 'due' ? c.amount : 0,
    paid ? c.amount : 0,
    c.amount,
    0,
    0,
  ];
}

/** What one sale counts for (its revenue). */
export function saleFigures(
  s: Pick<SaleRecord, 'charge_amount_cents' | 'sale_amount_cents'> | null,
): StatVector {
  if (!s) return [...ZERO_STATS];
  return [0, 0, 0, 0, s.charge_amount_cents, s.sale_amount_cents];
}

export function difference(after: StatVector, before: StatVector): StatVector {
  return after.map((value, i) => value - (before[i] ?? 0));
}

export function addTo(sum: StatVector, more: StatVector): StatVector {
  return sum.map((value, i) => value + (more[i] ?? 0));
}

export const isZero = (v: StatVector): boolean => v.every((value) => value === 0);

/**
 * A currency becomes a field name in the stored figures: anything but an ISO-like code could
 * address another path, so such a record is not counted (currencies are upper-cased ISO codes).
 */
export const countableCurrency = (currency: string): boolean => /^[A-Z0-9_]{1,10}$/.test(currency);

/** Stored figures (per currency, per key) as the API shows them, currencies sorted by code. */
export function presentStats(
  currencies: Record<string, Partial<Record<StatKey, number>>> | undefined,
): CommissionStats {
  const shown: CommissionStats['currencies'] = {};
  for (const currency of Object.keys(currencies ?? {}).sort()) {
    const figures = currencies![currency]!;
    shown[currency] = Object.fromEntries(
      STAT_KEYS.map((key) => [key, { cents: figures[key] ?? 0, currency_iso: currency }]),
    ) as CommissionStats['currencies'][string];
  }
  return { currencies: shown };
}
