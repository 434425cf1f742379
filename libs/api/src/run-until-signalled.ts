/**
 * Process lifecycle for every service: start, then stop cleanly on SIGINT/SIGTERM. A start
 * failure (bad config, unreachable server) exits non-zero with the reason logged.
 */
interface MinimalLogger {
  info(obj: object, msg?: string): void;
  fatal(obj: object, msg?: string): void;
}

export function runUntilSignalled(
  log: MinimalLogger,
  start: () => Promise<() => Promise<void>>,
): void {
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void (stop ? stop() : Promise.resolve())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.fatal({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  start()
    .then((stopFn) => {
      stop = stopFn;
    })
    .catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      log.fatal({ err }, `failed to start: ${message}`);
      process.exit(1);
    });
}
