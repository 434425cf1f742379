/** Every request gets an id (the caller's `X-Request-Id` if it is sane), echoed in the response. */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const id = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}
