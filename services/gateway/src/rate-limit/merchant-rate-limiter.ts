/**
 * Per-merchant fixed-window limits in Redis. When Redis cannot answer, an in-process limiter
 * with the same settings takes over (rate-limiter-flexible's insurance), so an outage of the
 * cache degrades precision across replicas instead of failing requests.
 */
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export class MerchantRateLimiter {
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(
    private readonly redis: Redis,
    private readonly defaultPoints: number,
    private readonly windowSeconds: number,
  ) {}

  async consume(merchantId: string, points: number | null): Promise<RateDecision> {
    const limit = points ?? this.defaultPoints;
    try {
      const res = await this.limiterFor(limit).consume(merchantId, 1);
      return this.decision(true, limit, res);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.decision(false, limit, rejection);
      throw rejection;
    }
  }

  private decision(allowed: boolean, limit: number, res: RateLimiterRes): RateDecision {
    return {
      allowed,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }

  /** Limiters differ only by their points; merchants with the same limit share one. */
  private limiterFor(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const keyPrefix = `rl:${this.windowSeconds}:${points}`;
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix,
        points,
        duration: this.windowSeconds,
        insuranceLimiter: new RateLimiterMemory({
          keyPrefix,
          points,
          duration: this.windowSeconds,
        }),
      });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

/**
 * IETF httpapi-ratelimit-headers draft -11 fields. The policy name tells a client which limit it
 * met: its merchant's requests (`default`) or its address's failed authentications.
 */
export function rateLimitHeaders(
  decision: RateDecision,
  policy = 'default',
): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
