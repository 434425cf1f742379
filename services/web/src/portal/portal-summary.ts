/** Figures the dashboard shows, computed from what the services returned (pure). */
import type { CommissionView, ReferralView } from '@aff/contracts';

export const COMMISSION_COLUMNS = ['pending', 'due', 'paid', 'voided'] as const;
export type CommissionColumn = (typeof COMMISSION_COLUMNS)[number];

export interface CurrencyTotals {
  currency: string;
  cents: Record<CommissionColumn, number>;
  /** Pending + due + paid: what was earned (voided excluded). */
  earned: number;
}

export function commissionTotals(commissions: CommissionView[]): CurrencyTotals[] {
  const byCurrency = new Map<string, CurrencyTotals>();
  for (const c of commissions) {
    const currency = c.currency.toUpperCase();
    let totals = byCurrency.get(currency);
    if (!totals) {
      totals = { currency, cents: { pending: 0, due: 0, paid: 0, voided: 0 }, earned: 0 };
      byCurrency.set(currency, totals);
    }
    totals.cents[c.state] += c.amount;
    if (c.state !== 'voided') totals.earned += c.amount;
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

export interface DayActivity {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** Referrals that started that day: a visitor's first visit through a link. */
  visitors: number;
  conversions: number;
}

/** The last `days` UTC days, oldest first, today included. */
export function dailyActivity(referrals: ReferralView[], now: Date, days = 30): DayActivity[] {
  const series: DayActivity[] = [];
  const index = new Map<string, DayActivity>();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(today - i * 86_400_000).toISOString().slice(0, 10);
    const entry = { day, visitors: 0, conversions: 0 };
    series.push(entry);
    index.set(day, entry);
  }
  for (const referral of referrals) {
    const started = index.get(referral.created_at.slice(0, 10));
    if (started) started.visitors += 1;
    const converted = referral.became_conversion_at
      ? index.get(referral.became_conversion_at.slice(0, 10))
      : undefined;
    if (converted) converted.conversions += 1;
  }
  return series;
}

/** Customers are the merchant's, not the affiliate's: show enough to recognise one, no more. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}
