/**
 * The due sweep reads the database (a scan of every commission on the local server) only when
 * there is reason to: at start, when a due time this process wrote has come, while a run hits
 * its batch limit, and every recheck period for what others wrote.
 */
import { DueSchedule } from '../src/domain/due-schedule';

function scheduleAt(start: number, recheckMs = 1_000) {
  const clock = { now: start };
  const runs: number[] = [];
  const schedule = new DueSchedule(recheckMs, () => clock.now);
  let moved = 0;
  const tick = () =>
    schedule.tick(async () => {
      runs.push(clock.now);
      return moved;
    }, 10);
  return { clock, runs, schedule, tick, setMoved: (n: number) => (moved = n) };
}

it('runs at start, then not again before the recheck period', async () => {
  const { clock, runs, tick } = scheduleAt(100);
  await tick();
  clock.now = 600;
  await tick();
  clock.now = 1_100;
  await tick();
  expect(runs).toEqual([100, 1_100]);
});

it('runs when a due time this process wrote has come, not before', async () => {
  const { clock, runs, schedule, tick } = scheduleAt(0, 60_000);
  await tick();
  schedule.noteDue(new Date(500));
  clock.now = 400;
  await tick();
  clock.now = 500;
  await tick();
  expect(runs).toEqual([0, 500]);
});

it('runs again at the next tick while a run moves a full batch', async () => {
  const { clock, runs, tick, setMoved } = scheduleAt(0, 60_000);
  setMoved(10);
  await tick();
  clock.now = 5;
  await tick();
  setMoved(3);
  clock.now = 10;
  await tick();
  clock.now = 15;
  await tick();
  expect(runs).toEqual([0, 5, 10]);
});
