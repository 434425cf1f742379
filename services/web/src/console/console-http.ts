/**
 * Console plumbing: the page frame, the session gate, and the checks every state-changing
 * request passes (same-origin, CSRF token, role). The portal's pieces are reused: security
 * headers, layout, cookies, html escaping.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@aff/logging';
import { html, type SafeHtml } from '../portal/html';
import { layout } from '../portal/portal-layout';
import {
  CONSOLE_COOKIE,
  clearSessionCookie,
  isHttps,
  readSessionCookie,
  setSessionCookie,
} from '../portal/session-cookie';
import {
  SESSION_IDLE_MS,
  csrfOk,
  type ConsoleAccounts,
  type ConsoleSession,
} from './console-accounts';
import { consoleNav } from './console-pages';
import { KnownSessions, holdUntilChecked, isPageView } from './session-overlap';

export const session = (res: Response) => res.locals.console as ConsoleSession;

/**
 * Under `no-referrer` (the portal's policy) browsers send `Origin: null` with form posts, and
 * the same-origin check could not tell the console's own forms from forged ones. `same-origin`
 * still sends nothing to other sites.
 */
const SAME_ORIGIN = 'same-origin';

export function referrerPolicy(_req: Request, res: Response, next: NextFunction) {
  res.set('Referrer-Policy', SAME_ORIGIN);
  next();
}

export function consolePage(
  res: Response,
  status: number,
  title: string,
  body: SafeHtml,
  signedIn = true,
) {
  const current = res.locals.console as ConsoleSession | undefined;
  res
    .status(status)
    .type('html')
    .send(
      layout({
        title,
        nonce: res.locals.nonce as string,
        body,
        site: {
          name: 'Merchant console',
          signOutAction: '/console/sign-out',
          referrer: SAME_ORIGIN,
          ...(signedIn && current
            ? { nav: consoleNav(res.req.originalUrl.split('?')[0] ?? '') }
            : {}),
        },
        ...(signedIn && current
          ? { signedIn: { name: `${current.email} (${current.role})`, csrf: current.csrfToken } }
          : {}),
      }),
    );
}

export const message = (title: string, text: string, extra: SafeHtml | string = '') =>
  html`<section>
    <h2>${title}</h2>
    <p>${text}</p>
    ${extra}
  </section>`;

export const UNAVAILABLE = message('Console unavailable', 'Try again in a moment.');

/** A session whose expiry is this close to a full 12 h was just used after a pause. */
const REFRESHED_WITHIN_MS = 5_000;

/**
 * Pages need a live session; without one, GETs go to the sign-in page, the rest get a 401.
 * Every request reads its session from the database. A page view whose session this replica
 * read before starts beside that read, its answer held until the read confirms the session
 * (./session-overlap.ts); everything else waits for the read first.
 */
export function requireConsoleSession(deps: {
  accounts: ConsoleAccounts;
  publicUrl: string;
  log: Logger;
}) {
  const known = new KnownSessions();
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = readSessionCookie(req, CONSOLE_COOKIE);
    const seen = isPageView(req) ? known.get(token) : undefined;
    if (seen) {
      res.locals.console = seen;
      holdUntilChecked(res, deps.accounts.session(token), seen, {
        confirmed: (found) => {
          known.remember(found);
          refreshCookie(req, res, found, deps.publicUrl);
        },
        refused: (found, error) => {
          if (found) {
            // Live, but not the session the page began with: view the page again with it.
            known.remember(found);
            res.redirect(303, req.originalUrl);
            return;
          }
          known.forget(token);
          if (!error) return notSignedIn(req, res, token, deps.publicUrl);
          // As the console's error handler answers a failed session read on the other path.
          deps.log.error({ err: error, requestId: res.locals.requestId }, 'console request failed');
          consolePage(res, 503, 'Unavailable', UNAVAILABLE, false);
        },
      });
      next();
      return;
    }
    const found = await deps.accounts.session(token);
    if (!found) {
      known.forget(token);
      notSignedIn(req, res, token, deps.publicUrl);
      return;
    }
    known.remember(found);
    res.locals.console = found;
    refreshCookie(req, res, found, deps.publicUrl);
    next();
  };
}

function notSignedIn(req: Request, res: Response, token: string | undefined, publicUrl: string) {
  if (token) clearSessionCookie(res, isHttps(req, publicUrl), CONSOLE_COOKIE);
  if (isPageView(req)) {
    res.redirect(303, '/console/sign-in');
    return;
  }
  consolePage(res, 401, 'Signed out', message('You are not signed in', 'Sign in again.'), false);
}

/**
 * The idle expiry just moved (at most once a minute): the browser's cookie moves with it, on
 * the page views (an action redirects to one; sign-out clears it). Its Max-Age was set at
 * sign-in, and would otherwise end a busy session 12 h after it began.
 */
function refreshCookie(req: Request, res: Response, found: ConsoleSession, publicUrl: string) {
  const justMoved = found.expiresAt.getTime() >= Date.now() + SESSION_IDLE_MS - REFRESHED_WITHIN_MS;
  if (justMoved && isPageView(req))
    setSessionCookie(res, found.token, found.expiresAt, isHttps(req, publicUrl), CONSOLE_COOKIE);
}

/**
 * A state-changing request whose `Origin` is not the platform's own changes nothing (forged
 * cross-site posts). Browsers send Origin on every POST; a request without one still needs the
 * session's CSRF token.
 */
export function sameOrigin(publicUrl: string) {
  const own = new URL(publicUrl).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== own) {
      consolePage(
        res,
        403,
        'Refused',
        message('Request refused', 'This form was not sent from the console.'),
        false,
      );
      return;
    }
    next();
  };
}

export function checkCsrf(req: Request, res: Response, next: NextFunction) {
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  if (!csrfOk(session(res), sent)) {
    consolePage(
      res,
      403,
      'Form expired',
      message('This form has expired', 'Reload the page and try again.'),
    );
    return;
  }
  next();
}

/** Viewers see everything and change nothing: every action route passes through this. */
export function requireOwner(_req: Request, res: Response, next: NextFunction) {
  if (session(res).role !== 'owner') {
    consolePage(
      res,
      403,
      'Not allowed',
      message('Not allowed', 'Your role (viewer) can see the program but not change it.'),
    );
    return;
  }
  next();
}

/**
 * The guards of an owner's action route, in the order they must run: parse the form, check its
 * CSRF token, refuse a viewer, and only then claim the form's single-use key (`once`,
 * form-keys.ts), so a refused post uses no key. `parse` is the page's body parser (the bulk
 * pages read repeated `ids`, the campaign form typed values).
 */
export const ownerAction = (parse: RequestHandler, once: RequestHandler): RequestHandler[] => [
  parse,
  checkCsrf,
  requireOwner,
  once,
];
