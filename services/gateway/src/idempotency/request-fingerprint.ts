/** Scoped store keys and request fingerprints for idempotency keys. */
import { createHash } from 'node:crypto';

export const MAX_KEY_LENGTH = 255;

/** Per merchant; the key is hashed so any header value makes a short, safe store key. */
export function scopedKey(merchantId: string, idempotencyKey: string): string {
  return `idem:${merchantId}:${sha256(idempotencyKey)}`;
}

/**
 * Same method, path, query and parameters give the same fingerprint, whatever the order of the
 * fields or the body's encoding (form or JSON parse to the same object).
 */
export function requestFingerprint(
  method: string,
  path: string,
  query: unknown,
  body: unknown,
): string {
  return sha256(JSON.stringify([method.toUpperCase(), path, canonical(query), canonical(body)]));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return entries.map(([k, v]) => [k, canonical(v)]);
  }
  return value ?? null;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
