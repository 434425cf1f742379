/**
 * What one commission or sale fact adds to `commission_stats`, and the change between two
 * versions of a fact, so statistics move by increments instead of being recounted (pure).
 */
import type { CommissionAmount, SaleAmount } from './commission-stats';

export const STAT_KEYS = [
  'unpaid',
  'due',
  'paid',
  'total',
  'gross_revenue',
  'net_revenue',
] as const;
export type StatKey = (typeof STAT_KEYS)[number];
/** Per currency, per key: cents to add. */
export type StatDelta = Map<string, Record<StatKey, number>>;

function zero(): Record<StatKey, number> {
  return { unpaid: 0, due: 0, paid: 0, total: 0, gross_revenue: 0, net_revenue: 0 };
}

function add(delta: StatDelta, currency: string, key: StatKey, cents: number): void {
  if (cents === 0) return;
  const bucket = delta.get(currency) ?? zero();
  bucket[key] += cents;
  delta.set(currency, bucket);
}

/** Same rules as commissionStats: voided counts nowhere; unpaid = pending + due. */
function addCommission(delta: StatDelta, c: CommissionAmount | null, sign: 1 | -1): void {
  if (!c || c.state === 'voided') return;
  add(delta, c.currency, c.state === 'paid' ? 'paid' : 'unpaid', sign * c.amount);
  if (c.state === 'due') add(delta, c.currency, 'due', sign * c.amount);
  add(delta, c.currency, 'total', sign * c.amount);
}

function addSale(delta: StatDelta, s: SaleAmount | null, sign: 1 | -1): void {
  if (!s) return;
  add(delta, s.currency, 'gross_revenue', sign * s.gross_cents);
  add(delta, s.currency, 'net_revenue', sign * s.net_cents);
}

export function commissionDelta(
  before: CommissionAmount | null,
  after: CommissionAmount,
): StatDelta {
  const delta: StatDelta = new Map();
  addCommission(delta, before, -1);
  addCommission(delta, after, 1);
  return prune(delta);
}

export function saleDelta(before: SaleAmount | null, after: SaleAmount): StatDelta {
  const delta: StatDelta = new Map();
  addSale(delta, before, -1);
  addSale(delta, after, 1);
  return prune(delta);
}

function prune(delta: StatDelta): StatDelta {
  for (const [currency, bucket] of delta)
    if (STAT_KEYS.every((key) => bucket[key] === 0)) delta.delete(currency);
  return delta;
}
