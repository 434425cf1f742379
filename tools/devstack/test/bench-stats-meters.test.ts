/**
 * The bench's two readers of the services' command statistics files (`<prefix>.<database>.<pid>.json`,
 * libs/mongo/src/command-stats.ts): documents written per event (WriteMeter) and the commands a
 * console page spends its database time on (DbTimeMeter), over a window in which one process
 * adds to its totals and a restarted one starts a new file; files of another prefix and one
 * caught half written are not read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DbTimeMeter } from '../src/bench/console-db-time';
import { WriteMeter } from '../src/bench/write-stats';

type Row = { key: string; count: number; docs: number; totalMs: number };

let dir: string;
const prefix = () => join(dir, 'stats');
const write = (name: string, rows: Row[] | string) =>
  writeFileSync(join(dir, name), typeof rows === 'string' ? rows : JSON.stringify(rows));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-stats-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('counts per event and per round what the files added over the window, by database, collection and command', async () => {
  write('stats.aff_tracking.100.json', [
    { key: 'referrals insert', count: 2, docs: 4, totalMs: 10 },
    { key: 'referrals find {merchant_id}', count: 5, docs: 5, totalMs: 50 },
  ]);
  write('stats.aff_commission.200.json', [
    { key: 'sales update {_id}', count: 1, docs: 1, totalMs: 3 },
  ]);
  write('stats.aff_web.300.json', '[{"key": "pages insert", "cou');
  write('other.aff_tracking.100.json', [
    { key: 'referrals insert', count: 90, docs: 90, totalMs: 9 },
  ]);

  const [writes, dbTime] = await Promise.all([
    new WriteMeter(prefix()).start(),
    new DbTimeMeter(prefix()).start(),
  ]);
  write('stats.aff_tracking.100.json', [
    { key: 'referrals insert', count: 4, docs: 8, totalMs: 14 },
    { key: 'referrals find {merchant_id}', count: 9, docs: 9, totalMs: 90 },
  ]);
  write('stats.aff_commission.201.json', [
    { key: 'sales update {_id}', count: 2, docs: 2, totalMs: 6 },
    { key: 'sales findAndModify {_id}', count: 1, docs: 1, totalMs: 1 },
  ]);
  write('other.aff_tracking.100.json', [
    { key: 'referrals insert', count: 99, docs: 99, totalMs: 9 },
  ]);
  const [account, costs] = await Promise.all([writes.end(2), dbTime.end(2, 2)]);

  expect(account).toEqual({
    events: 2,
    rows: [
      { key: 'aff_tracking.referrals insert', perEvent: 2 },
      { key: 'aff_commission.sales update', perEvent: 1 },
      { key: 'aff_commission.sales findAndModify', perEvent: 0.5 },
    ],
    totalPerEvent: 3.5,
  });
  // The find (2 per round) and the updates (1 per round) cost most; the findAndModify, at half
  // a round, is a background job's and not listed.
  expect(costs).toEqual([
    { key: 'aff_tracking.referrals find {merchant_id}', perRound: 2, msPerRound: 20 },
    { key: 'aff_commission.sales update {_id}', perRound: 1, msPerRound: 3 },
  ]);
});
