/**
 * The retry schedule (docs/webhooks.md): retries at fixed offsets from the first attempt, the
 * waits doubling from 30 s, the last one at the end of the 3-day window. Pure functions.
 */
import type { DeliveryState } from './records';

export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
export const FIRST_RETRY_WAIT_MS = 30_000;

/**
 * Unscaled offsets of every retry after the first attempt: 30 s × (2^n − 1) while the retry
 * after it would still fit in the window; the retry after which no other fits moves to the
 * window's end, so the last chance comes 3 days after the first attempt and waits still grow.
 */
export const RETRY_OFFSETS_MS: readonly number[] = (() => {
  const offsets: number[] = [];
  for (let n = 1; ; n++) {
    const next = FIRST_RETRY_WAIT_MS * (2 ** (n + 1) - 1);
    if (next > RETRY_WINDOW_MS) {
      offsets.push(RETRY_WINDOW_MS);
      return offsets;
    }
    offsets.push(FIRST_RETRY_WAIT_MS * (2 ** n - 1));
  }
})();

/**
 * The first retry slot strictly after `notBefore`, or null when none is left (give up). Slots
 * missed while the service was down, or while a slow attempt ran, are skipped rather than
 * fired in a burst.
 */
export function nextRetryAt(firstAttemptAt: Date, notBefore: Date, timeScale: number): Date | null {
  const start = firstAttemptAt.getTime();
  for (const offset of RETRY_OFFSETS_MS) {
    const slot = start + offset * timeScale;
    if (slot > notBefore.getTime()) return new Date(slot);
  }
  return null;
}

export interface AttemptOutcome {
  state: DeliveryState;
  next_attempt_at: Date | null;
  first_attempt_at: Date;
}

/**
 * What an attempt leaves behind: only status 200 delivers (spec §6); anything else waits for
 * the next slot (not before a `Retry-After` the endpoint asked for), or fails once none is left.
 */
export function outcomeOf(
  status: number | null,
  firstAttemptAt: Date,
  finishedAt: Date,
  timeScale: number,
  retryAfterMs: number | null = null,
): AttemptOutcome {
  if (status === 200) {
    return { state: 'delivered', next_attempt_at: null, first_attempt_at: firstAttemptAt };
  }
  const notBefore = new Date(finishedAt.getTime() + Math.max(0, retryAfterMs ?? 0));
  const next = nextRetryAt(firstAttemptAt, notBefore, timeScale);
  return next
    ? { state: 'pending', next_attempt_at: next, first_attempt_at: firstAttemptAt }
    : { state: 'failed', next_attempt_at: null, first_attempt_at: firstAttemptAt };
}
