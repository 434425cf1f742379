import { metrics } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { rateLimitHeaders, type MerchantRateLimiter } from '../rate-limit/merchant-rate-limiter';
import { merchantOf } from './auth';

const rejections = metrics
  .getMeter('affiliate-platform')
  .createCounter('gateway.rate_limit.rejections', {
    description: 'Requests answered 429, by merchant tier (its limit per window, or "default")',
    unit: '{request}',
  });

export function rateLimit(limiter: MerchantRateLimiter) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const merchant = merchantOf(res);
    const decision = await limiter.consume(merchant.id, merchant.rateLimit);
    res.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      // The tier, not the merchant id: merchants are unbounded, tiers are few.
      rejections.add(1, {
        'merchant.tier': merchant.rateLimit ? String(merchant.rateLimit) : 'default',
      });
      res.setHeader('Retry-After', String(decision.resetSeconds));
      res.status(429).json({
        error: `Rate limit exceeded. Retry in ${decision.resetSeconds} seconds.`,
      });
      return;
    }
    next();
  };
}
