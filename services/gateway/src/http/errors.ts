/** Uniform JSON errors for what never reaches a service: unknown routes, bad bodies, failures. */
import type { NextFunction, Request, Response } from 'express';
import { isAppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { redactUrl } from '@aff/telemetry';

export function notFound(_req: Request, res: Response): void {
  res.status(404).json({ error: 'Not found.' });
}

interface HttpError {
  type?: string;
  status?: number;
}

export function errorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error);
    const httpError = (error ?? {}) as HttpError;
    if (httpError.type === 'entity.too.large') {
      res.status(413).json({ error: 'Request body is too large (limit 1 MB).' });
    } else if (httpError.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'Malformed request body.' });
    } else if (
      httpError.type === 'charset.unsupported' ||
      httpError.type === 'encoding.unsupported'
    ) {
      res.status(415).json({ error: 'Unsupported body encoding.' });
    } else if (isAppError(error)) {
      res.status(error.status).json(error.toBody());
    } else if (
      typeof httpError.status === 'number' &&
      httpError.status >= 400 &&
      httpError.status < 500
    ) {
      res.status(httpError.status).json({ error: 'Bad request.' });
    } else {
      log.error(
        { err: error, requestId: res.locals.requestId, url: redactUrl(req.originalUrl) },
        'request failed',
      );
      res.status(500).json({ error: 'Internal server error.' });
    }
  };
}
