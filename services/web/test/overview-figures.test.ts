/** The overview's window figures: growth since the oldest reading, and per-day bars. */
import { windowFigures } from '../src/console/overview-figures';
import type { StatDayRecord, Totals } from '../src/console/program-history';

const money = (cents: number) => ({ cents, currency_iso: 'USD' });
function totals(visitors: number, leads: number, conversions: number, gross = 0, paid = 0): Totals {
  const currencies: Totals['commission_stats']['currencies'] = gross
    ? {
        USD: {
          unpaid: money(0),
          due: money(0),
          paid: money(paid),
          total: money(gross / 5),
          gross_revenue: money(gross),
          net_revenue: money(gross),
        },
      }
    : {};
  return { visitors, leads, conversions, commission_stats: { currencies } };
}
const reading = (day: string, t: Totals): StatDayRecord => ({
  _id: `m:${day}`,
  merchant_id: 'm',
  day,
  at: new Date(`${day}T00:10:00Z`),
  totals: t,
});

it('has no window figures until a reading older than today exists', () => {
  expect(windowFigures([], totals(5, 1, 1), '2026-11-27').since).toBeNull();
  const onlyToday = windowFigures(
    [reading('2026-11-27', totals(1, 0, 0))],
    totals(5, 1, 1),
    '2026-11-27',
  );
  expect(onlyToday).toMatchObject({ since: null, visitors: 0, days: [] });
});

it('grows from the oldest reading; a day gains until the next reading; gaps are zero', () => {
  const now = totals(10, 4, 2, 5_000, 100);
  const figures = windowFigures(
    [
      reading('2026-11-24', totals(3, 1, 0, 1_000)),
      reading('2026-11-26', totals(7, 2, 1, 3_000)),
      reading('2026-11-27', totals(8, 3, 2, 4_000)),
    ],
    now,
    '2026-11-27',
  );
  expect(figures).toMatchObject({ since: '2026-11-24', visitors: 7, leads: 3, conversions: 2 });
  expect(figures.days).toEqual([
    { label: '2026-11-24', values: [4, 1, 1] },
    { label: '2026-11-25', values: [0, 0, 0] },
    { label: '2026-11-26', values: [1, 1, 1] },
    { label: '2026-11-27', values: [2, 1, 0] },
  ]);
  expect(figures.currencies).toEqual([
    { currency: 'USD', gross_revenue: 4_000, net_revenue: 4_000, earned: 800, paid: 100 },
  ]);
});
