import type { NextFunction, Request, Response } from 'express';
import { rateLimitHeaders, type MerchantRateLimiter } from '../rate-limit/merchant-rate-limiter';
import { merchantOf } from './auth';

export function rateLimit(limiter: MerchantRateLimiter) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const merchant = merchantOf(res);
    const decision = await limiter.consume(merchant.id, merchant.rateLimit);
    res.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.resetSeconds));
      res.status(429).json({
        error: `Rate limit exceeded. Retry in ${decision.resetSeconds} seconds.`,
      });
      return;
    }
    next();
  };
}
