/** Where idempotency keys and their stored answers live (Redis, MongoDB when Redis is down). */

export interface StoredAnswer {
  status: number;
  body: unknown;
  /** Headers replayed with the answer (only ones that describe the answer, not this request). */
  headers: Record<string, string>;
}

export interface IdempotencyRecord {
  /** Hash of method, path, query and canonical body of the first request with the key. */
  fingerprint: string;
  /** `POST /v1/affiliates`: named in the 422 when the key is reused for another request. */
  request: string;
  /** Absent while the first request is still in flight. */
  answer?: StoredAnswer;
}

export interface IdempotencyStore {
  /** Stores `record` only if the key is free; true when this caller now owns the key. */
  claim(key: string, record: IdempotencyRecord, ttlMs: number): Promise<boolean>;
  get(key: string): Promise<IdempotencyRecord | null>;
  /** Replaces the in-flight record with the finished one. */
  complete(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void>;
  /** Frees the key (after a 5xx) so that a retry runs again. */
  release(key: string): Promise<void>;
}
