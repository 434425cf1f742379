/**
 * The merchant console under `/console`: sign-in (./sign-in-routes.ts), then, behind a session,
 * its pages: one module each, registered in PAGE_MODULES (see ./console-pages.ts for how a page
 * is written). Every POST passes the same-origin check first; actions then check the CSRF token
 * and the role (./console-http.ts).
 */
import express, { type Router } from 'express';
import type { Logger } from '@aff/logging';
import type { RpcClient } from '@aff/messaging';
import { html } from '../portal/html';
import { securityHeaders } from '../portal/portal-http';
import { affiliateActionRoutes } from './affiliate-actions';
import { affiliateRoutes } from './affiliate-page';
import { affiliatesRoutes } from './affiliates-page';
import { campaignsRoutes } from './campaigns-page';
import { commissionsRoutes } from './commissions-page';
import { overviewRoutes } from './overview-page';
import type { ProgramHistory } from './program-history';
import type { ConsoleAccounts } from './console-accounts';
import {
  UNAVAILABLE,
  consolePage,
  message,
  referrerPolicy,
  requireConsoleSession,
  sameOrigin,
} from './console-http';
import type { ConsoleMailer } from './console-mailer';
import { singleUseForm, type FormKeys } from './form-keys';
import type { PageDeps, PageModule } from './console-pages';
import { referralsRoutes } from './referrals-page';
import { reviewsRoutes } from './reviews-page';
import { payoutExportsRoutes } from './payout-exports-page';
import { payoutsRoutes } from './payouts-page';
import { signInRoutes } from './sign-in-routes';
import type { SignInLimiter } from './sign-in-limiter';
import { webhookLogRoutes } from './webhook-log-page';
import { webhooksRoutes } from './webhooks-page';

/**
 * Every page of the console, one module each (their paths are in CONSOLE_NAV), under the section
 * whose paths it serves: the segment after `/console` (`''` for `/console` itself).
 */
export const PAGE_MODULES: [section: string, page: PageModule][] = [
  ['', overviewRoutes],
  ['affiliates', affiliatesRoutes],
  ['affiliates', affiliateRoutes],
  ['affiliates', affiliateActionRoutes],
  ['referrals', referralsRoutes],
  ['reviews', reviewsRoutes],
  ['commissions', commissionsRoutes],
  ['payouts', payoutsRoutes],
  ['payouts', payoutExportsRoutes],
  ['webhooks', webhooksRoutes],
  ['webhooks', webhookLogRoutes],
  ['campaigns', campaignsRoutes],
];

export interface ConsoleDeps {
  rpc: RpcClient;
  accounts: ConsoleAccounts;
  mailer: ConsoleMailer;
  publicUrl: string;
  /** Sign-in requests per address, counted in web's database (every replica shares it). */
  signInLimiter: SignInLimiter;
  log: Logger;
  history: ProgramHistory;
  /** Single-use form keys: every action runs once per rendered form (form-keys.ts). */
  formKeys: FormKeys;
}

export function consoleRouter(deps: ConsoleDeps): Router {
  const router = express.Router();
  router.use('/console', securityHeaders, referrerPolicy, sameOrigin(deps.publicUrl));
  const body = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  router.use(signInRoutes({ ...deps, limiter: deps.signInLimiter }, body));
  router.use('/console', requireConsoleSession(deps));
  const pageDeps = {
    rpc: deps.rpc,
    body,
    publicUrl: deps.publicUrl,
    log: deps.log,
    history: deps.history,
    once: singleUseForm(deps.formKeys, deps.log),
  };
  router.use(pageSections(pageDeps));
  router.use('/console', (_req, res) => {
    consolePage(
      res,
      404,
      'Not found',
      message('Not found', 'There is no such page.', html`<p><a href="/console">Back</a></p>`),
    );
  });
  router.use('/console', consoleErrors(deps.log));
  return router;
}

function consoleErrors(log: Logger) {
  return (
    error: unknown,
    _req: express.Request,
    res: express.Response,
    next: express.NextFunction,
  ) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      consolePage(
        res,
        status,
        'Bad request',
        message('Bad request', 'The form could not be read.'),
      );
      return;
    }
    log.error({ err: error, requestId: res.locals.requestId }, 'console request failed');
    consolePage(res, 503, 'Unavailable', UNAVAILABLE);
  };
}

/**
 * A request walks only its own section's page modules: walking all of them, one router after
 * another, cost every page (the 404 most) a measurable part of the web hop (docs/console.md).
 * Routing is Express's as before: case-insensitive, each module's own paths.
 */
function pageSections(pageDeps: PageDeps): express.RequestHandler {
  const sections = new Map<string, Router>();
  for (const [section, page] of PAGE_MODULES) {
    const pages = sections.get(section) ?? express.Router();
    pages.use(page(pageDeps));
    sections.set(section, pages);
  }
  return (req, res, next) => {
    const pages = sections.get((req.path.split('/')[2] ?? '').toLowerCase());
    if (pages) pages(req, res, next);
    else next();
  };
}
