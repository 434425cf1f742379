/** Portal plumbing: security headers, the session gate, CSRF checks, pages and errors. */
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { isAppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { redactUrl } from '@aff/telemetry';
import { html, type SafeHtml } from './html';
import { messageBody } from './other-pages';
import { PortalReplyError } from './portal-data';
import { layout } from './portal-layout';
import { csrfMatches, type PortalSession, type PortalSessions } from './portal-sessions';
import { clearSessionCookie, isHttps, readSessionCookie } from './session-cookie';

export interface Locals {
  session: PortalSession;
  token: string;
}

export const ASK_AGAIN =
  'Sign-in links work once and for one minute, and only the newest one works. Ask the program you work with for a new sign-in link.';

export function requireSession(deps: { sessions: PortalSessions; publicUrl: string }) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = readSessionCookie(req);
    const session = await deps.sessions.find(token);
    if (!session || !token) {
      if (token) clearSessionCookie(res, isHttps(req, deps.publicUrl));
      page(res, 401, 'Signed out', {
        body: messageBody(
          'You are not signed in',
          `Your session has ended or you signed out. ${ASK_AGAIN}`,
        ),
      });
      return;
    }
    const value: Locals = { session, token };
    res.locals.portal = value;
    next();
  };
}

export function checkCsrf(req: Request, res: Response, next: NextFunction) {
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  if (!csrfMatches(locals(res).session, sent)) {
    page(res, 403, 'Form expired', {
      body: messageBody(
        'This form has expired',
        'Reload the dashboard and try again.',
        html`<p><a href="/portal">Back to the dashboard</a></p>`,
      ),
    });
    return;
  }
  next();
}

export function securityHeaders(_req: Request, res: Response, next: NextFunction) {
  const nonce = randomBytes(16).toString('base64');
  res.locals.nonce = nonce;
  res.set({
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  });
  next();
}

export function portalErrors(log: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error instanceof PortalReplyError && error.status < 500) {
      page(res, error.status, 'Request not possible', {
        body: messageBody('That did not work', error.message),
      });
      return;
    }
    if (isAppError(error) && error.status >= 500) {
      page(res, error.status, 'Portal unavailable', {
        body: messageBody('Portal unavailable', 'Please try again in a moment.'),
      });
      return;
    }
    const status = (error as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      page(res, status, 'Bad request', {
        body: messageBody('Bad request', 'The form could not be read.'),
      });
      return;
    }
    log.error(
      { err: error, requestId: res.locals.requestId, url: redactUrl(req.originalUrl) },
      'portal request failed',
    );
    page(res, 500, 'Something went wrong', {
      body: messageBody('Something went wrong', 'Please try again in a moment.'),
    });
  };
}

export function page(
  res: Response,
  status: number,
  title: string,
  opts: { body: SafeHtml; signedIn?: boolean },
) {
  const portal = res.locals.portal as Locals | undefined;
  res
    .status(status)
    .type('html')
    .send(
      layout({
        title,
        nonce: res.locals.nonce as string,
        body: opts.body,
        ...(opts.signedIn && portal
          ? { signedIn: { name: portal.session.name, csrf: portal.session.csrfToken } }
          : {}),
      }),
    );
}

export function notFound(res: Response) {
  page(res, 404, 'Not found', {
    body: messageBody(
      'Not found',
      'There is nothing here for your account.',
      html`<p><a href="/portal">Back to the dashboard</a></p>`,
    ),
    signedIn: true,
  });
}

export const locals = (res: Response) => res.locals.portal as Locals;
