/**
 * Routes without the API secret: the tracking intake used by merchants' pages (identified by
 * the public key, limited per client IP, open to any origin) and the payment processor's
 * signed event hook. The pages (`/portal`, `/console`) are the web service's (../http/page-proxy.ts).
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { OPERATIONS, buildEvent, deterministicId } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { EventPublisher, RpcClient } from '@aff/messaging';
import { rateLimitHeaders, type MerchantRateLimiter } from '../rate-limit/merchant-rate-limiter';
import { validProcessorEvent } from './processor-event';
import { verifyProcessorSignature } from './processor-signature';
import type { PublicKeyResolver } from './public-key-resolver';
import { addressHash, clientAddress, type AddressKey } from '../http/client-address';
import type { MerchantRecord } from '../merchants/merchant.schema';
import { trackerScript } from './tracker-script';

export interface PublicRouteDeps {
  keys: PublicKeyResolver;
  /** Redis key of a client address for the per-address limit (a keyed hash). */
  addressKey: AddressKey;
  /** The merchant's client address salt (made on first use for merchants older than salts). */
  addressSaltOf: (merchant: MerchantRecord) => Promise<string>;
  limiter: MerchantRateLimiter;
  /** Requests per window per client IP on `/t/v1`. */
  ipPoints: number;
  rpc: RpcClient;
  publisher: EventPublisher;
  publicUrl: string;
  log: Logger;
}

const BODY_LIMIT = '1mb';

export function publicRouter(deps: PublicRouteDeps): Router {
  const router = express.Router();

  router.use('/t/v1', allowAnyOrigin);
  router.get(OPERATIONS.trackerScript.http.path, (_req, res) => {
    res
      .type('application/javascript')
      .set('Cache-Control', 'public, max-age=300')
      .send(trackerScript(deps.publicUrl));
  });
  const intake = [
    limitPerIp(deps),
    express.json({ limit: BODY_LIMIT }),
    express.urlencoded({ extended: true, limit: BODY_LIMIT }),
  ];
  router.post(OPERATIONS.recordVisit.http.path, ...intake, forwardToTracking(deps, 'recordVisit'));
  router.post(OPERATIONS.recordLead.http.path, ...intake, forwardToTracking(deps, 'recordLead'));

  router.post(
    OPERATIONS.receiveProcessorEvent.http.path,
    express.raw({ type: () => true, limit: BODY_LIMIT }),
    async (req: Request, res: Response) => {
      const merchant = await deps.keys.resolve(String(req.params.public_key));
      if (!merchant) {
        res.status(404).json({ error: 'Not found.' });
        return;
      }
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const check = verifyProcessorSignature(
        req.get('processor-signature'),
        raw,
        merchant.processor_signing_secret,
        Math.floor(Date.now() / 1000),
      );
      if (!check.ok) {
        res.status(400).json({ error: `Invalid signature: ${check.reason}.` });
        return;
      }
      const parsed = validProcessorEvent(parseJson(raw));
      if (!parsed.ok) {
        res.status(400).json({
          error: 'Invalid event: expected {id, type, data: {object}}.',
          details: parsed.details,
        });
        return;
      }
      const event = buildEvent('processor.received', merchant._id, { event: parsed.value });
      // Same processor event, same id: the stream keeps one copy, tracking applies it once.
      try {
        await deps.publisher.publish({
          ...event,
          id: deterministicId(`${merchant._id}:${parsed.value.id}`),
        });
      } catch {
        // The broker is restarting or unreachable: nothing was stored, and the processor's
        // retry (it retries any non-2xx) will deliver it again. 503 says "try again".
        res
          .status(503)
          .set('Retry-After', '5')
          .json({ error: 'Service unavailable: events. Try again shortly.' });
        return;
      }
      res.json({ received: true });
    },
  );
  return router;
}

function allowAnyOrigin(req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': 'content-type',
    'Access-Control-Max-Age': '600',
    // The tracker waits as long as a 429 or 503 says before it sends a visit again.
    'Access-Control-Expose-Headers': 'Retry-After',
  });
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

function limitPerIp(deps: PublicRouteDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await deps.limiter.consume(deps.addressKey(req), deps.ipPoints);
    res.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.resetSeconds));
      res
        .status(429)
        .json({ error: `Rate limit exceeded. Retry in ${decision.resetSeconds} seconds.` });
      return;
    }
    next();
  };
}

function forwardToTracking(deps: PublicRouteDeps, operation: 'recordVisit' | 'recordLead') {
  return async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const key = typeof body.key === 'string' ? body.key : '';
    const merchant = key ? await deps.keys.resolve(key) : null;
    if (!merchant) {
      res.status(401).json({ error: 'Invalid public key.' });
      return;
    }
    const salt = await deps.addressSaltOf(merchant);
    const reply = await deps.rpc.call(
      'tracking',
      operation,
      {
        merchant_id: merchant._id,
        params: {},
        query: {},
        body,
        expand: [],
        api_key_id: null,
        client_address_hash: addressHash(salt, clientAddress(req)),
      },
      res.locals.requestId as string,
    );
    res.status(reply.status).json(reply.body);
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
