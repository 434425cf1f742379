/** Runs payout generation for every merchant on an interval (PAYOUT_GENERATE_INTERVAL_MS). */
import type { Logger } from '@aff/logging';
import type { GeneratePayouts } from '../domain/generate-payouts';

export interface RunningScheduler {
  stop(): Promise<void>;
}

export function startGenerateScheduler(
  generate: GeneratePayouts,
  intervalMs: number,
  log: Logger,
): RunningScheduler {
  if (intervalMs <= 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    // A slow run is not overlapped by the next tick.
    running ??= generate
      .generateForAllMerchants()
      .then((touched) => {
        if (touched > 0) log.info({ touched }, 'scheduled payout generation');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'scheduled payout generation failed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
