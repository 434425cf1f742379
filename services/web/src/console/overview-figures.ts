/**
 * The overview's window figures (pure): what the program's totals grew by since the oldest
 * reading of the last 30 days, and per reading day what they grew by until the next reading
 * (or until now). See ./program-history.ts for where readings come from.
 */
import type { StatDayRecord, Totals } from './program-history';

export interface CurrencyGrowth {
  currency: string;
  gross_revenue: number;
  net_revenue: number;
  /** Commissions earned (pending + due + paid; voided ones leave it). */
  earned: number;
  paid: number;
}

export interface WindowFigures {
  /** The day of the oldest reading in the window; null when history starts today. */
  since: string | null;
  visitors: number;
  leads: number;
  conversions: number;
  currencies: CurrencyGrowth[];
  /**
   * Per day since the first reading: [visitors, leads, conversions] gained from that day's reading
   * until the next one (zeros on a day without a reading).
   */
  days: { label: string; values: number[] }[];
}

const cents = (
  t: Totals | undefined,
  currency: string,
  key: 'gross_revenue' | 'net_revenue' | 'total' | 'paid',
) => t?.commission_stats.currencies[currency]?.[key].cents ?? 0;

function growth(from: Totals, to: Totals) {
  return [to.visitors - from.visitors, to.leads - from.leads, to.conversions - from.conversions];
}

export function windowFigures(
  readings: StatDayRecord[],
  now: Totals,
  today: string,
): WindowFigures {
  const base = readings[0];
  if (!base || base.day >= today) {
    return { since: null, visitors: 0, leads: 0, conversions: 0, currencies: [], days: [] };
  }
  const [visitors, leads, conversions] = growth(base.totals, now) as [number, number, number];
  const currencies = Object.keys(now.commission_stats.currencies)
    .sort()
    .map((currency) => ({
      currency,
      gross_revenue:
        cents(now, currency, 'gross_revenue') - cents(base.totals, currency, 'gross_revenue'),
      net_revenue:
        cents(now, currency, 'net_revenue') - cents(base.totals, currency, 'net_revenue'),
      earned: cents(now, currency, 'total') - cents(base.totals, currency, 'total'),
      paid: cents(now, currency, 'paid') - cents(base.totals, currency, 'paid'),
    }));
  // One slot per day from the first reading to today; a day without a reading shows nothing
  // (what it gained is in the bar of the reading before it).
  const gained = new Map(
    readings.map((reading, i) => [
      reading.day,
      growth(reading.totals, readings[i + 1]?.totals ?? now),
    ]),
  );
  const days: WindowFigures['days'] = [];
  for (let t = Date.parse(`${base.day}T00:00:00Z`); ; t += 86_400_000) {
    const label = new Date(t).toISOString().slice(0, 10);
    if (label > today) break;
    days.push({ label, values: gained.get(label) ?? [0, 0, 0] });
  }
  return { since: base.day, visitors, leads, conversions, currencies, days };
}
