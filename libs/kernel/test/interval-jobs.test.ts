/** The kernel's interval runner: no overlapping runs, failures logged and retried, stop waits. */
import { createLogger } from '@aff/logging';
import { startIntervalJobs } from '../src/interval-jobs';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('never overlaps a slow run, and stop waits for the run in progress', async () => {
  let running = 0;
  let most = 0;
  let finished = 0;
  const jobs = startIntervalJobs(
    [
      {
        everyMs: 5,
        failure: 'slow failed',
        run: async () => {
          running++;
          most = Math.max(most, running);
          await sleep(40);
          running--;
          finished++;
        },
      },
    ],
    createLogger('test', 'silent'),
  );
  await sleep(120);
  await jobs.stop();
  expect(most).toBe(1);
  expect(running).toBe(0);
  const after = finished;
  await sleep(30);
  expect(finished).toBe(after);
});

it('logs a failed run and runs again on the next tick; 0 turns a job off', async () => {
  const warnings: string[] = [];
  const log = createLogger('test', 'silent');
  jest.spyOn(log, 'warn').mockImplementation(((_obj: object, msg: string) => {
    warnings.push(msg);
  }) as unknown as typeof log.warn);
  let calls = 0;
  let off = 0;
  const jobs = startIntervalJobs(
    [
      {
        everyMs: 5,
        failure: 'sweep failed',
        run: async () => {
          calls++;
          throw new Error('down');
        },
      },
      { everyMs: 0, failure: 'never', run: async () => void off++ },
    ],
    log,
  );
  await sleep(60);
  await jobs.stop();
  expect(calls).toBeGreaterThan(1);
  expect(warnings.every((w) => w === 'sweep failed')).toBe(true);
  expect(warnings.length).toBe(calls);
  expect(off).toBe(0);
});
