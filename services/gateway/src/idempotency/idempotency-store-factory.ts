import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import type { Logger } from '@aff/logging';
import { FailoverIdempotencyStore } from './failover-idempotency-store';
import { idempotencyKeyModel } from './idempotency-key.schema';
import type { IdempotencyStore } from './idempotency-store';
import { MongoIdempotencyStore } from './mongo-idempotency-store';
import { RedisIdempotencyStore } from './redis-idempotency-store';

/** Redis, with MongoDB standing in while Redis is down. */
export async function idempotencyStore(
  redis: Redis,
  mongo: Connection,
  log: Logger,
): Promise<IdempotencyStore> {
  const keys = idempotencyKeyModel(mongo);
  await keys.init();
  return new FailoverIdempotencyStore(
    new RedisIdempotencyStore(redis),
    new MongoIdempotencyStore(keys),
    log,
  );
}
