/**
 * What the gateway keeps of its per-request collections (docs/retention.md): idempotency keys
 * until they expire (portal sessions are the web service's). Expiry is checked in code on every
 * read; this deletes them afterwards, in bounded batches, since the local server applies no TTL index. The gateway
 * is not a kernel service, so it runs its one job on its own timer, with the kernel's rules:
 * never overlapped, a failure logged and retried on the next tick, the timer never keeps the
 * process alive.
 */
import type { Connection } from 'mongoose';
import type { Logger } from '@aff/logging';
import { pruneExpired, type RetentionRule } from '@aff/mongo';
import { idempotencyKeyModel } from './idempotency/idempotency-key.schema';

export function gatewayRetention(mongo: Connection): RetentionRule[] {
  return [{ model: idempotencyKeyModel(mongo), field: 'expires_at', keepMs: 0 }];
}

export function startRetention(rules: RetentionRule[], everyMs: number, log: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pruneExpired(rules)
      .catch((err: unknown) => log.warn({ err }, 'retention prune failed'))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
