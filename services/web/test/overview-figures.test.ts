/**
 * The overview's window figures: growth since the oldest reading, and per-day bars; derived
 * readings (counted from tracking's referrals) in the chart, not in the money; which derived
 * readings a backfill keeps.
 */
import { derivedReadings } from '../src/console/history-backfill';
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

const derived = (day: string, visitors: number, leads: number, conversions: number) => ({
  ...reading(day, totals(0, 0, 0)),
  at: new Date(`${day}T00:00:00Z`),
  totals: { visitors, leads, conversions },
  derived: true,
});

it('derived readings start the chart and the three figures; the money starts at the first real one', () => {
  const now = totals(10, 4, 2, 5_000, 100);
  const figures = windowFigures(
    [
      derived('2026-11-22', 1, 0, 0),
      derived('2026-11-23', 3, 1, 0),
      reading('2026-11-25', totals(6, 2, 1, 1_000)),
      // A real reading that lags the referrals' count: the day's bar is zero, not negative.
      reading('2026-11-26', totals(5, 2, 1, 3_000)),
    ],
    now,
    '2026-11-27',
  );
  expect(figures).toMatchObject({
    since: '2026-11-22',
    money_since: '2026-11-25',
    visitors: 9,
    leads: 4,
    conversions: 2,
  });
  expect(figures.days).toEqual([
    { label: '2026-11-22', values: [2, 1, 0] },
    { label: '2026-11-23', values: [3, 1, 1] },
    { label: '2026-11-24', values: [0, 0, 0] },
    { label: '2026-11-25', values: [0, 0, 0] },
    { label: '2026-11-26', values: [5, 2, 1] },
    { label: '2026-11-27', values: [0, 0, 0] },
  ]);
  expect(figures.currencies).toEqual([
    { currency: 'USD', gross_revenue: 4_000, net_revenue: 4_000, earned: 800, paid: 100 },
  ]);
});

it('with derived readings only before today, the window has no money figures', () => {
  const figures = windowFigures(
    [derived('2026-11-25', 0, 0, 0), reading('2026-11-27', totals(3, 0, 0, 1_000))],
    totals(4, 1, 0, 2_000),
    '2026-11-27',
  );
  expect(figures).toMatchObject({ since: '2026-11-25', money_since: null, visitors: 4 });
  expect(figures.currencies).toEqual([]);
});

describe('derivedReadings', () => {
  const midnights = (counts: number[][]) =>
    counts.map(([visitors, leads, conversions], i) => ({
      at: `2026-11-${String(20 + i).padStart(2, '0')}T00:00:00.000Z`,
      visitors: visitors!,
      leads: leads!,
      conversions: conversions!,
    }));

  it('keeps the days from the last midnight without a visitor, before today', () => {
    const found = derivedReadings(
      midnights([
        [0, 0, 0],
        [0, 0, 0],
        [2, 1, 0],
        [3, 1, 1],
        [4, 2, 1],
      ]),
      '2026-11-24',
    );
    expect(found).toEqual([
      { day: '2026-11-21', at: new Date('2026-11-21T00:00:00Z'), totals: v(0, 0, 0) },
      { day: '2026-11-22', at: new Date('2026-11-22T00:00:00Z'), totals: v(2, 1, 0) },
      { day: '2026-11-23', at: new Date('2026-11-23T00:00:00Z'), totals: v(3, 1, 1) },
    ]);
  });

  it('keeps nothing for a program whose first visitor came today', () => {
    expect(
      derivedReadings(
        midnights([
          [0, 0, 0],
          [0, 0, 0],
        ]),
        '2026-11-21',
      ),
    ).toEqual([]);
    // Yesterday's midnight had none, today's has: yesterday's reading is the base of its bar.
    expect(
      derivedReadings(
        midnights([
          [0, 0, 0],
          [1, 0, 0],
        ]),
        '2026-11-21',
      ),
    ).toEqual([{ day: '2026-11-20', at: new Date('2026-11-20T00:00:00Z'), totals: v(0, 0, 0) }]);
  });

  const v = (visitors: number, leads: number, conversions: number) => ({
    visitors,
    leads,
    conversions,
  });
});
