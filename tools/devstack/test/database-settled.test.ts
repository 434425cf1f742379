/**
 * bench:scale's wait between restarts: once the local server answers other connections during
 * a scan, a quick answer no longer means the previous service's start-up scans are done; the
 * server's CPU does. The wait lasts while the server is busy, and ends once it is idle.
 */
import { cpuMs, databasePid } from '../src/bench/database-cpu';
import { databaseSettled } from '../src/bench/scale-report';

it('waits while the database answers quickly but its CPU is busy', async () => {
  const started = Date.now();
  // Busy (a core's worth of CPU per ms) for the first 1.5 s, idle after.
  const busyCpu = () => (Date.now() - started < 1_500 ? Date.now() - started : 1_500);
  const waited = await databaseSettled(async () => undefined, 0, busyCpu);
  expect(waited).toBeGreaterThanOrEqual(1_500);
  expect(waited).toBeLessThan(5_000);
  // Without the CPU reading, the quick answers alone settle it at once.
  expect(await databaseSettled(async () => undefined, 0)).toBeLessThan(1_500);
});

it('reads a process’s CPU time and finds no database on an unused port', () => {
  const before = cpuMs(process.pid)!;
  const until = Date.now() + 200;
  while (Date.now() < until); // spin
  expect(cpuMs(process.pid)!).toBeGreaterThan(before);
  expect(databasePid('mongodb://127.0.0.1:1/')).toBeUndefined();
});
