/**
 * Background work on a timer (due sweeps, counter repair, pollers, pruning): a run is never
 * overlapped by the next tick, a failure is logged and retried on the next tick, and stopping
 * waits for the run in progress. The timers do not keep the process alive.
 */
import type { Logger } from '@aff/logging';

export interface IntervalJob {
  /** Milliseconds between runs; 0 or less turns the job off. */
  everyMs: number;
  run(): Promise<unknown>;
  /** Logged (warn) with the error when a run fails. */
  failure: string;
  /** Also run once right away (a start-up pass), not only after the first interval. */
  atStart?: boolean;
}

export interface RunningJobs {
  stop(): Promise<void>;
}

export function startIntervalJobs(jobs: IntervalJob[], log: Logger): RunningJobs {
  const started = jobs.filter((job) => job.everyMs > 0).map((job) => startJob(job, log));
  return {
    async stop() {
      await Promise.all(started.map((stop) => stop()));
    },
  };
}

function startJob(job: IntervalJob, log: Logger): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= job
      .run()
      .then(() => undefined)
      .catch((err: unknown) => log.warn({ err }, job.failure))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, job.everyMs);
  timer.unref();
  if (job.atStart) tick();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
