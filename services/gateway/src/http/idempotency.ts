/**
 * `Idempotency-Key` on REST writes, as Stripe does it: the first answer (2xx or 4xx) to a key is
 * stored for the merchant and replayed to retries with the same request; a 5xx is not stored, so
 * a retry runs again. Details and the Redis-down behaviour: docs/idempotency.md.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@aff/logging';
import { awaitKey, type KeyTiming } from '../idempotency/await-key';
import type { IdempotencyRecord, IdempotencyStore } from '../idempotency/idempotency-store';
import { MAX_KEY_LENGTH, requestFingerprint, scopedKey } from '../idempotency/request-fingerprint';
import { merchantOf } from './auth';

export interface IdempotencyDeps extends KeyTiming {
  store: IdempotencyStore;
  /** How long a finished answer is kept (24 h). */
  ttlMs: number;
  log: Logger;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

export function idempotency(deps: IdempotencyDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const idempotencyKey = req.get('idempotency-key');
    // GET and DELETE are idempotent already; the key has no effect there (as at Stripe).
    if (idempotencyKey === undefined || !WRITES.has(req.method)) return next();
    if (idempotencyKey.length === 0 || idempotencyKey.length > MAX_KEY_LENGTH) {
      res
        .status(400)
        .json({ error: `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters long.` });
      return;
    }
    const path = req.originalUrl.split('?')[0]!;
    const key = scopedKey(merchantOf(res).id, idempotencyKey);
    const pending: IdempotencyRecord = {
      fingerprint: requestFingerprint(req.method, path, req.query, req.body),
      request: `${req.method} ${path}`,
    };
    const outcome = await awaitKey(deps.store, key, pending, deps);
    if (outcome.kind === 'mismatch') {
      res.status(422).json({
        error: 'Idempotency-Key already used for a different request.',
        details: [
          `Idempotency-Key was first used for ${outcome.record.request} with other parameters; use a new key for a new request`,
        ],
      });
    } else if (outcome.kind === 'in-flight') {
      res.setHeader('Retry-After', '1');
      res.status(409).json({
        error: 'A request with this Idempotency-Key is still in progress. Retry shortly.',
      });
    } else if (outcome.kind === 'replay') {
      const answer = outcome.record.answer!;
      res.set(answer.headers).set('Idempotent-Replayed', 'true');
      res.status(answer.status).json(answer.body);
    } else {
      // The services derive the ids of what this request creates from it (see rpc-proxy.ts).
      res.locals.idempotencySeed = `${key}:${pending.fingerprint}`;
      storeAnswerBeforeSending(req, res, key, pending, deps);
      next();
    }
  };
}

/**
 * The answer is stored before it is sent, so a client that retries as soon as it has the answer
 * always finds it stored.
 */
function storeAnswerBeforeSending(
  req: Request,
  res: Response,
  key: string,
  pending: IdempotencyRecord,
  deps: IdempotencyDeps,
): void {
  const send = res.json.bind(res);
  res.json = ((body: unknown) => {
    const status = res.statusCode;
    const saved =
      status >= 500
        ? deps.store.release(key)
        : deps.store.complete(
            key,
            {
              ...pending,
              answer: { status, body, headers: { 'Original-Request-Id': requestIdOf(res) } },
            },
            deps.ttlMs,
          );
    saved
      .catch((error: unknown) =>
        deps.log.warn(
          { err: (error as Error).message, requestId: requestIdOf(res), path: req.path },
          'idempotency key: answer not stored',
        ),
      )
      .finally(() => send(body));
    return res;
  }) as Response['json'];
}

function requestIdOf(res: Response): string {
  return String(res.locals.requestId ?? '');
}
