/** The gateway's Express app: request ids, health, auth, rate limit, bodies, routing, errors. */
import express, { type Express } from 'express';
import type { Logger } from '@aff/logging';
import type { RpcClient } from '@aff/messaging';
import { runChecks, type ReadinessCheck } from '@aff/api';
import type { MerchantAuthenticator } from '../merchants/merchant-authenticator';
import type { SecretDirectory } from '../merchants/secret-directory';
import type { MerchantRateLimiter } from '../rate-limit/merchant-rate-limiter';
import type { AuthFailureGuard } from '../rate-limit/auth-failure-guard';
import { idempotency, type IdempotencyDeps } from './idempotency';
import { authenticate } from './auth';
import { errorHandler, notFound } from './errors';
import { rateLimit } from './rate-limit';
import { requestId } from './request-id';
import { accessLog } from './access-log';
import type { AddressKey } from './client-address';
import type { TrustProxy } from '../config';
import { proxyTo } from './rpc-proxy';
import { referenceRouter } from './reference';
import { apiRoutes } from './routes';
import { publicRouter, type PublicRouteDeps } from '../public/public-routes';
import { PAGE_PREFIXES } from '@aff/contracts';
import { pageProxy, type PageProxyDeps } from './page-proxy';

export interface AppDeps {
  directory: SecretDirectory;
  authenticator: MerchantAuthenticator;
  limiter: MerchantRateLimiter;
  authFailures: AuthFailureGuard;
  idempotency: IdempotencyDeps;
  rpc: RpcClient;
  log: Logger;
  readiness: Record<string, ReadinessCheck>;
  /** Reported by /readyz but not required: the gateway keeps serving without them. */
  degradable: Record<string, ReadinessCheck>;
  trustProxy: TrustProxy;
  /** Rate-limit key of a client address (a keyed hash, ./client-address.ts). */
  addressKey: AddressKey;
  publicRoutes: PublicRouteDeps;
  /** `/portal` and `/console`: the web service's pages. */
  pages: PageProxyDeps;
}

const BODY_LIMIT = '1mb';

export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  // `qs` parsing turns `expand[]=a&expand[]=b` and `state[]=x` into arrays.
  app.set('query parser', 'extended');
  app.use(requestId);
  app.use(accessLog(deps.log));
  // First after them: a page does not walk the health, reference and public routes on its way
  // (none of their paths is under a page prefix, so the order decides nothing else).
  app.use([...PAGE_PREFIXES], pageProxy(deps.pages));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // No `/metrics` here: Prometheus scrapes the operations port (OPS_PORT, ../service.ts).
  // Load balancers that only reach the API port learn ready or not; which dependency is down
  // is operational data, answered on the operations port only.
  app.get('/readyz', async (_req, res) => {
    const { ready } = await runChecks(deps.readiness, deps.degradable);
    res.status(ready ? 200 : 503).json({ ready });
  });

  // Before `/v1`'s authentication: the document and its reference page need no credentials.
  app.use(referenceRouter());
  app.use(publicRouter(deps.publicRoutes));

  const v1 = express.Router();
  v1.use(authenticate(deps.directory, deps.authenticator, deps.authFailures, deps.addressKey));
  v1.use(rateLimit(deps.limiter));
  v1.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
  v1.use(express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: 1000 }));
  // After the body parsers: the stored answer is matched to the request by its parameters.
  v1.use(idempotency(deps.idempotency));
  for (const route of apiRoutes()) {
    v1[route.method](route.path.replace(/^\/v1/, ''), proxyTo(route, deps.rpc));
  }
  v1.use(notFound);
  app.use('/v1', v1);

  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
