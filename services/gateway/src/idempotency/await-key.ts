/**
 * Who answers a request with an idempotency key: this request (it claimed the key), a stored
 * answer (replay), or nobody yet (another request with the key is still in flight).
 */
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store';

export type KeyOutcome =
  | { kind: 'owner' }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'mismatch'; record: IdempotencyRecord }
  | { kind: 'in-flight' };

export interface KeyTiming {
  /** How long the in-flight record holds the key if its request never finishes (crash). */
  lockMs: number;
  /** How long a concurrent request waits for the first one's answer before a 409. */
  waitMs: number;
  pollMs: number;
}

export async function awaitKey(
  store: IdempotencyStore,
  key: string,
  pending: IdempotencyRecord,
  timing: KeyTiming,
): Promise<KeyOutcome> {
  const deadline = Date.now() + timing.waitMs;
  for (;;) {
    if (await store.claim(key, pending, timing.lockMs)) return { kind: 'owner' };
    const record = await store.get(key);
    // Gone between claim and get (a 5xx released it, or it expired): try to claim again.
    if (!record) continue;
    if (record.fingerprint !== pending.fingerprint) return { kind: 'mismatch', record };
    if (record.answer) return { kind: 'replay', record };
    if (Date.now() >= deadline) return { kind: 'in-flight' };
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}
