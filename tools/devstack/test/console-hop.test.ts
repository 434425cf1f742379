/**
 * The console phase's account of the hop: "the hop alone" (a signed-in 404 against a REST 404)
 * gives each page the lowest ratio it can have, printed beside its measured ratio.
 */
import {
  HOP_ALONE,
  formatConsolePages,
  hopAloneMs,
  hopFloor,
  type PageFigures,
} from '../src/bench/console-bench';

const figures = (name: string, page: number, rest: number): PageFigures => ({
  name,
  page: `/console/${name}`,
  rest: [[`/v1/${name}`]],
  pageMs: { median: page, p95: page },
  restMs: { median: rest, p95: rest },
  ratio: page / rest,
  failed: [],
});

it('the hop allows 1 + hop / REST: 3 ms on a 6 ms list is 1.50, on a 300 ms list 1.01', () => {
  expect(hopFloor(3, 6)).toBe('1.50');
  expect(hopFloor(3, 300)).toBe('1.01');
  // A hop measured below zero (noise) allows 1.
  expect(hopFloor(-0.5, 6)).toBe('1.00');
});

it('prints the floor of each page from the hop alone, and the hop itself', () => {
  const pages = [figures('webhooks', 10, 6), { ...figures('hop', 4.5, 1.5), name: HOP_ALONE.name }];
  expect(hopAloneMs(pages)).toBe(3);
  const table = formatConsolePages(pages);
  const row = table.split('\n').find((line) => line.startsWith('| webhooks'))!;
  expect(row.split(' | ')[5]).toBe('1.50');
  expect(table).toContain('page − REST = 3 ms');
  // Without the hop measured, no floor is claimed.
  expect(hopAloneMs([figures('webhooks', 10, 6)])).toBeNull();
});
