/** Runs payout generation for every merchant on an interval (PAYOUT_GENERATE_INTERVAL_MS). */
import type { IntervalJob } from '@aff/kernel';
import type { Logger } from '@aff/logging';
import type { GeneratePayouts } from '../domain/generate-payouts';

/** 0 turns it off; the kernel's interval runner does not overlap a slow run with the next. */
export function generateJob(
  generate: GeneratePayouts,
  intervalMs: number,
  log: Logger,
): IntervalJob {
  return {
    everyMs: intervalMs,
    run: async () => {
      const touched = await generate.generateForAllMerchants();
      if (touched > 0) log.info({ touched }, 'scheduled payout generation');
    },
    failure: 'scheduled payout generation failed',
  };
}
