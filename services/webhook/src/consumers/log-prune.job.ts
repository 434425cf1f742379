/**
 * Prunes the delivery log on an interval (the first run shortly after start): what finished
 * more than the retention period ago goes, pending deliveries stay (data/log-pruner.ts).
 */
import type { Logger } from '@aff/logging';
import type { LogPruner } from '../data/log-pruner';

export interface RunningJob {
  stop(): Promise<void>;
}

export function startLogPruneJob(
  pruner: LogPruner,
  retentionMs: number,
  intervalMs: number,
  log: Logger,
): RunningJob {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= pruner
      .prune(new Date(Date.now() - retentionMs))
      .then((pruned) => {
        if (pruned.deliveries > 0) log.info(pruned, 'delivery log pruned');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'delivery log prune failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
