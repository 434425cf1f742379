/**
 * The pages (`/portal`, `/console`) are the web service's: each request goes to it over NATS
 * (`renderPage`), behind a per-address limit, and its answer is written back as it came. Only
 * the request headers pages read are forwarded; the body goes raw, for the page to parse.
 */
import type { NextFunction, Request, Response } from 'express';
import {
  OPERATIONS,
  PAGE_BODY_LIMIT_BYTES,
  PAGE_REQUEST_HEADERS,
  type PageRequest,
} from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import type { AddressKey } from './client-address';
import { announceSignIn, type SignInAnnouncer } from './sign-in-event';
import { rateLimitHeaders, type MerchantRateLimiter } from '../rate-limit/merchant-rate-limiter';

export interface PageProxyDeps {
  rpc: RpcClient;
  limiter: MerchantRateLimiter;
  addressKey: AddressKey;
  /** Page requests per address and window (the tracking intake's figure). */
  ipPoints: number;
  /** Publishes `affiliate.signed_in` when the web service says a request signed one in. */
  signIns: SignInAnnouncer;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Set by Express or Node for the answer the gateway writes, never copied from the page's. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive']);

export function pageProxy(deps: PageProxyDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!METHODS.has(req.method)) return next();
    // Its own budget, apart from the tracking intake's, under the same keyed address hash.
    const decision = await deps.limiter.consume(`page:${deps.addressKey(req)}`, deps.ipPoints);
    if (!decision.allowed) {
      res.set(rateLimitHeaders(decision));
      res.setHeader('Retry-After', String(decision.resetSeconds));
      res
        .status(429)
        .json({ error: `Rate limit exceeded. Retry in ${decision.resetSeconds} seconds.` });
      return;
    }
    const body = await readBody(req);
    if (!body) {
      res.status(413).json({ error: 'Request body is too large (limit 256 KB).' });
      return;
    }
    const url = new URL(req.originalUrl, 'http://gateway');
    const request: PageRequest = {
      method: req.method as PageRequest['method'],
      path: url.pathname,
      query: url.search.slice(1),
      headers: forwardedHeaders(req),
      body: body.toString('base64'),
      secure: req.secure,
    };
    const reply = await callInternal(
      deps.rpc,
      OPERATIONS.renderPage,
      request,
      res.locals.requestId as string,
    );
    if (reply.signed_in) {
      const { merchant_id: merchantId, affiliate_id: affiliateId } = reply.signed_in;
      await announceSignIn(deps.signIns, merchantId, affiliateId, req);
    }
    res.status(reply.status);
    for (const [name, value] of Object.entries(reply.headers)) {
      if (!OWN_HEADERS.has(name)) res.setHeader(name, value);
    }
    // `send` as the portal's own pages used it: ETag, a 304 when the browser has the page, HEAD.
    res.send(reply.body);
  };
}

function forwardedHeaders(req: Request): PageRequest['headers'] {
  const headers: Record<string, string> = {};
  for (const name of PAGE_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

const NO_BODY = Buffer.alloc(0);

/** The raw body, or null past the page limit (a form is a few hundred bytes). */
async function readBody(req: Request): Promise<Buffer | null> {
  // A request that announces no body has none (RFC 9112 6.3): no stream to wait on.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
    return NO_BODY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > PAGE_BODY_LIMIT_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
