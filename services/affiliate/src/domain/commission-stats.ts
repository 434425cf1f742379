/** The `commission_stats` expansion, computed from commission and sale facts (pure). */
import type { CommissionStats } from '@aff/contracts';

export interface CommissionAmount {
  currency: string;
  amount: number;
  state: string;
}
export interface SaleAmount {
  currency: string;
  gross_cents: number;
  net_cents: number;
}

const KEYS = ['unpaid', 'due', 'paid', 'total', 'gross_revenue', 'net_revenue'] as const;

/**
 * Per currency: unpaid = pending + due, due, paid, total = unpaid + paid (voided excluded),
 * gross_revenue = charged amounts of referred sales, net_revenue = after tax and refunds.
 */
export function commissionStats(
  commissions: CommissionAmount[],
  sales: SaleAmount[],
): CommissionStats {
  const sums = new Map<string, Record<(typeof KEYS)[number], number>>();
  const bucket = (currency: string) => {
    let b = sums.get(currency);
    if (!b) {
      b = { unpaid: 0, due: 0, paid: 0, total: 0, gross_revenue: 0, net_revenue: 0 };
      sums.set(currency, b);
    }
    return b;
  };
  for (const c of commissions) {
    if (c.state === 'voided') continue;
    const b = bucket(c.currency);
    if (c.state === 'paid') b.paid += c.amount;
    else b.unpaid += c.amount;
    if (c.state === 'due') b.due += c.amount;
    b.total += c.amount;
  }
  for (const s of sales) {
    const b = bucket(s.currency);
    b.gross_revenue += s.gross_cents;
    b.net_revenue += s.net_cents;
  }
  const currencies: CommissionStats['currencies'] = {};
  for (const [currency, b] of [...sums.entries()].sort(([a], [z]) => a.localeCompare(z))) {
    currencies[currency] = Object.fromEntries(
      KEYS.map((key) => [key, { cents: b[key], currency_iso: currency }]),
    ) as CommissionStats['currencies'][string];
  }
  return { currencies };
}
