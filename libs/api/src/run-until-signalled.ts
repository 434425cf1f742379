/**
 * Process lifecycle for every service: start, then stop cleanly on SIGINT/SIGTERM. A start
 * failure (bad config, unreachable server) exits non-zero with the reason logged.
 *
 * Stopping has a hard deadline (SHUTDOWN_TIMEOUT_MS, default 3 s): the launcher, a process
 * manager or Kubernetes expects the process gone in a few seconds, and a server that vanished
 * at the same moment (Ctrl-C reaches the whole process group) must not make a drain hang.
 */
interface MinimalLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  fatal(obj: object, msg?: string): void;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 3_000;

export function shutdownTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.SHUTDOWN_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SHUTDOWN_TIMEOUT_MS;
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
    const startedAt = Date.now();
    log.info({ signal }, 'shutting down');
    const timeoutMs = shutdownTimeoutMs();
    const force = setTimeout(() => {
      log.warn({ timeoutMs }, 'shutdown deadline passed; exiting without finishing');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    void (stop ? stop() : Promise.resolve())
      .then(() => {
        log.info({ ms: Date.now() - startedAt }, 'stopped');
        process.exit(0);
      })
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

/**
 * Resolves when `promise` settles or after `ms`, whichever is first, so one shutdown step that
 * waits on a server that is gone cannot use up the whole deadline of the steps after it.
 */
export async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
