/**
 * Redis first; when Redis cannot answer, MongoDB. Writes keep one effect during a Redis outage
 * (MongoDB's claim is as atomic), at the cost of a slower store. Records do not move between the
 * two, so a key first used just before a switch-over may run once more after it (docs/idempotency.md).
 */
import type { Logger } from '@aff/logging';
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store';

const WARN_EVERY_MS = 10_000;

export class FailoverIdempotencyStore implements IdempotencyStore {
  private lastWarning = 0;

  constructor(
    private readonly primary: IdempotencyStore,
    private readonly fallback: IdempotencyStore,
    private readonly log: Logger,
  ) {}

  claim(key: string, record: IdempotencyRecord, ttlMs: number): Promise<boolean> {
    return this.run((store) => store.claim(key, record, ttlMs));
  }

  get(key: string): Promise<IdempotencyRecord | null> {
    return this.run((store) => store.get(key));
  }

  complete(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    return this.run((store) => store.complete(key, record, ttlMs));
  }

  release(key: string): Promise<void> {
    return this.run((store) => store.release(key));
  }

  private async run<T>(op: (store: IdempotencyStore) => Promise<T>): Promise<T> {
    try {
      return await op(this.primary);
    } catch (error) {
      // One line per interval, not per request: an outage must not flood the logs.
      if (Date.now() - this.lastWarning > WARN_EVERY_MS) {
        this.lastWarning = Date.now();
        this.log.warn(
          { err: (error as Error).message },
          'idempotency keys: Redis unavailable, using MongoDB',
        );
      }
      return op(this.fallback);
    }
  }
}
