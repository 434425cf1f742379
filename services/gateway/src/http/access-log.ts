/**
 * One debug line per request (method, URL, status, duration). The URL is logged only redacted:
 * magic-link tokens and other secrets in the query never reach a log (docs/security.md), and
 * no client address is logged at all.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@aff/logging';
import { redactUrl } from '@aff/telemetry';

export function accessLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!log.isLevelEnabled('debug')) return next();
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      log.debug(
        {
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          requestId: res.locals.requestId as string,
        },
        'request',
      );
    });
    next();
  };
}
