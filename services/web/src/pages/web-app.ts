/**
 * The web service's Express app: the portal's routes, the merchant console's, then JSON errors
 * like the gateway's for anything else. Requests
 * reach it only through `renderPage` (./page-dispatch.ts), never from a socket.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '@aff/logging';
import { redactUrl } from '@aff/telemetry';
import { consoleRouter, type ConsoleDeps } from '../console/console-routes';
import { portalRouter, type PortalDeps } from '../portal/portal-routes';

export interface WebAppDeps {
  portal: PortalDeps;
  console: ConsoleDeps;
  log: Logger;
}

/** Paths the portal router can match: `/portal` and below, in any case (Express's default). */
const UNDER_PORTAL = /^\/portal(?:\/|$)/i;

export function buildWebApp(deps: WebAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // As the gateway parsed queries for the portal: `qs`, so `a[]=x` arrives as an array.
  app.set('query parser', 'extended');
  // Only a portal path walks the portal's routes (every one of them is under `/portal`): a
  // console page skipped them one by one, a sub-router among them, before reaching its own.
  const portal = portalRouter(deps.portal);
  app.use((req, res, next) => (UNDER_PORTAL.test(req.path) ? portal(req, res, next) : next()));
  app.use(consoleRouter(deps.console));
  app.use(notFound);
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    deps.log.error(
      { err: error, requestId: res.locals.requestId, url: redactUrl(req.originalUrl) },
      'page request failed',
    );
    res.status(500).json({ error: 'Internal server error.' });
  });
  return app;
}

function notFound(_req: Request, res: Response): void {
  res.status(404).json({ error: 'Not found.' });
}
