/**
 * Counts failed API authentications per client IP in a fixed window (Redis, with an in-process
 * stand-in while Redis is down, as for the merchant limits). Only failures count; once an address
 * has used up its failures, its requests are refused before any secret is looked up.
 */
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision } from './merchant-rate-limiter';

export const AUTH_FAILURE_POLICY = 'auth-failures';

export class AuthFailureGuard {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly points: number,
    private readonly windowSeconds: number,
  ) {
    const keyPrefix = `authfail:${windowSeconds}:${points}`;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points,
      duration: windowSeconds,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds }),
    });
  }

  /** Whether `ip` may still try a secret; reading does not count as a failure. */
  async check(ip: string): Promise<RateDecision> {
    const res = await this.limiter.get(ip);
    const used = res?.consumedPoints ?? 0;
    return {
      allowed: used < this.points,
      limit: this.points,
      remaining: Math.max(0, this.points - used),
      resetSeconds: Math.max(1, Math.ceil((res?.msBeforeNext ?? 0) / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }

  async recordFailure(ip: string): Promise<void> {
    try {
      await this.limiter.consume(ip, 1);
    } catch (rejection) {
      // Over the limit already (a concurrent failure got there first): nothing more to count.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    }
  }
}
