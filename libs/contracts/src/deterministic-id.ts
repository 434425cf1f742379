import { createHash, randomUUID } from 'node:crypto';

/**
 * A UUID-shaped id derived from a name (same name, same id). Events caused by one processor
 * event get ids derived from it, so a re-run after a crash republishes the same ids and the
 * stream drops the copies.
 */
export function deterministicId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of a record a request creates. With an idempotency seed (a REST call with an
 * `Idempotency-Key`) it is derived from the seed, so a re-run of the same request after a crash
 * computes the same id and finds the record the first run made; otherwise it is random.
 */
export function newRecordId(idempotencySeed: string | undefined, kind: string): string {
  return idempotencySeed ? deterministicId(`${idempotencySeed}:${kind}`) : randomUUID();
}
