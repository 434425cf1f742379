/**
 * Prunes the delivery log on an interval: what finished more than the retention period ago
 * goes, pending deliveries stay (data/log-pruner.ts).
 */
import type { IntervalJob } from '@aff/kernel';
import type { Logger } from '@aff/logging';
import type { LogPruner } from '../data/log-pruner';

export function logPruneJob(
  pruner: LogPruner,
  retentionMs: number,
  intervalMs: number,
  log: Logger,
): IntervalJob {
  return {
    everyMs: intervalMs,
    run: async () => {
      const pruned = await pruner.prune(new Date(Date.now() - retentionMs));
      if (pruned.deliveries > 0) log.info(pruned, 'delivery log pruned');
    },
    failure: 'delivery log prune failed',
  };
}
