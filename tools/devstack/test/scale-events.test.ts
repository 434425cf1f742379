/**
 * bench:scale's "never pruned" column names a collection pruned when a retention rule prunes it:
 * every collection in docs/retention.md's table is in `PRUNED` (the console's five were missing,
 * so the 1,000,000 run printed `web.console_form_keys` as kept for good).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRUNED } from '../src/bench/scale-events';

it('counts every collection docs/retention.md prunes as pruned', () => {
  const table = readFileSync(join(__dirname, '../../../docs/retention.md'), 'utf8');
  const documented = [...table.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]!);
  expect(documented.length).toBeGreaterThan(10);
  expect(documented.filter((name) => !PRUNED.has(name))).toEqual([]);
});
