/** Idempotency records in Redis: `SET NX PX` makes the claim atomic across gateway replicas. */
import type Redis from 'ioredis';
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store';

export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  async claim(key: string, record: IdempotencyRecord, ttlMs: number): Promise<boolean> {
    const done = await this.redis.set(key, JSON.stringify(record), 'PX', ttlMs, 'NX');
    return done === 'OK';
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    const raw = await this.redis.get(key);
    return raw ? (JSON.parse(raw) as IdempotencyRecord) : null;
  }

  async complete(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    await this.redis.set(key, JSON.stringify(record), 'PX', ttlMs);
  }

  async release(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
