/**
 * The overview's window figures (pure): what the program's totals grew by since the oldest
 * reading of the last 30 days, and per reading day what they grew by until the next reading
 * (or until now). See ./program-history.ts for where readings come from.
 *
 * A derived reading (counted afterwards from tracking's referrals) has visitors, leads and
 * conversions only: it starts the chart and those three figures, while the money figures start
 * at the oldest real reading (`money_since`).
 */
import { hasMoney, type StatDayRecord, type StoredTotals, type Totals } from './program-history';

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
  /**
   * The day of the oldest real reading (with the money figures) in the window; null when there
   * is none before today. Later than `since` when older days have derived readings only.
   */
  money_since: string | null;
  visitors: number;
  leads: number;
  conversions: number;
  currencies: CurrencyGrowth[];
  /**
   * Per day since the first reading: [visitors, leads, conversions] gained from that day's reading
   * until the next one (zeros on a day without a reading; never below zero: a derived reading
   * counts referrals, a real one the kept count, which may lag it for a moment).
   */
  days: { label: string; values: number[] }[];
}

const cents = (
  t: Totals | undefined,
  currency: string,
  key: 'gross_revenue' | 'net_revenue' | 'total' | 'paid',
) => t?.commission_stats.currencies[currency]?.[key].cents ?? 0;

function growth(from: StoredTotals, to: StoredTotals) {
  return [to.visitors - from.visitors, to.leads - from.leads, to.conversions - from.conversions];
}

export function windowFigures(
  readings: StatDayRecord[],
  now: Totals,
  today: string,
): WindowFigures {
  const base = readings[0];
  if (!base || base.day >= today) {
    const none = { visitors: 0, leads: 0, conversions: 0, currencies: [], days: [] };
    return { since: null, money_since: null, ...none };
  }
  const [visitors, leads, conversions] = growth(base.totals, now) as [number, number, number];
  const money = readings.find((r) => hasMoney(r.totals) && r.day < today);
  const from = money?.totals as Totals | undefined;
  const currencies = !from
    ? []
    : Object.keys(now.commission_stats.currencies)
        .sort()
        .map((currency) => ({
          currency,
          gross_revenue:
            cents(now, currency, 'gross_revenue') - cents(from, currency, 'gross_revenue'),
          net_revenue: cents(now, currency, 'net_revenue') - cents(from, currency, 'net_revenue'),
          earned: cents(now, currency, 'total') - cents(from, currency, 'total'),
          paid: cents(now, currency, 'paid') - cents(from, currency, 'paid'),
        }));
  // One slot per day from the first reading to today; a day without a reading shows nothing
  // (what it gained is in the bar of the reading before it).
  const gained = new Map(
    readings.map((reading, i) => [
      reading.day,
      growth(reading.totals, readings[i + 1]?.totals ?? now).map((n) => Math.max(0, n)),
    ]),
  );
  const days: WindowFigures['days'] = [];
  for (let t = Date.parse(`${base.day}T00:00:00Z`); ; t += 86_400_000) {
    const label = new Date(t).toISOString().slice(0, 10);
    if (label > today) break;
    days.push({ label, values: gained.get(label) ?? [0, 0, 0] });
  }
  const money_since = money?.day ?? null;
  return { since: base.day, money_since, visitors, leads, conversions, currencies, days };
}
