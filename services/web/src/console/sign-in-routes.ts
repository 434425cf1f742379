/**
 * Console sign-in: the form, mailed single-use links, following a link, and sign-out. The form
 * answers the same whether or not the address belongs to a user (no account enumeration).
 */
import express, { type Router } from 'express';
import type { Logger } from '@aff/logging';
import { html } from '../portal/html';
import {
  CONSOLE_COOKIE,
  clearSessionCookie,
  isHttps,
  readSessionCookie,
  setSessionCookie,
} from '../portal/session-cookie';
import type { ConsoleAccounts } from './console-accounts';
import { checkCsrf, consolePage, message, requireConsoleSession, session } from './console-http';
import { signInMail, type ConsoleMailer } from './console-mailer';
import type { SignInLimiter } from './sign-in-limiter';

export interface SignInDeps {
  accounts: ConsoleAccounts;
  mailer: ConsoleMailer;
  publicUrl: string;
  /** Sign-in requests per address (shared by the replicas, ./sign-in-limiter.ts). */
  limiter: SignInLimiter;
  log: Logger;
}

export const signInUrl = (publicUrl: string, token: string) =>
  `${publicUrl.replace(/\/+$/, '')}/console/sign-in/link?token=${token}`;

const SENT =
  'If this address belongs to a console user, a sign-in link is on its way. It works once, for 15 minutes.';

const form = (notice?: string) =>
  html`<section>
    <h2>Sign in</h2>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
    <form class="signin" method="post" action="/console/sign-in">
      <label for="email">E-mail address</label>
      <input id="email" name="email" type="email" autocomplete="email" required />
      <button type="submit">Mail me a sign-in link</button>
    </form>
  </section>`;

/** A new link to every user with this address (none for an unknown one); failures logged. */
async function mailLinks(deps: SignInDeps, email: string): Promise<void> {
  for (const user of await deps.accounts.usersByEmail(email)) {
    try {
      const token = await deps.accounts.issueLink(user._id);
      await deps.mailer.send(signInMail(user.email, signInUrl(deps.publicUrl, token)));
    } catch (err) {
      deps.log.error({ err }, 'console sign-in mail failed');
    }
  }
}

export function signInRoutes(deps: SignInDeps, body: express.RequestHandler): Router {
  const router = express.Router();

  router.get('/console/sign-in', (req, res) => {
    const notice = req.query.signed_out === '1' ? 'You are signed out.' : undefined;
    consolePage(res, 200, 'Sign in', form(notice), false);
  });

  router.post('/console/sign-in', body, async (req, res) => {
    const sent = (req.body as Record<string, unknown> | undefined)?.email;
    const email = typeof sent === 'string' ? sent.trim().toLowerCase() : '';
    if (!email || email.length > 254 || !email.includes('@')) {
      consolePage(res, 400, 'Sign in', form('Enter an e-mail address.'), false);
      return;
    }
    if (!(await deps.limiter.allow(email))) {
      // Said for every address alike, so it reveals nothing about which ones exist.
      consolePage(res, 429, 'Sign in', form('Too many links asked for. Try again later.'), false);
      return;
    }
    // Answered before anything is looked up or mailed: the answer, and how long it takes, must
    // not depend on the address (a known one would wait for its link and the mail server).
    consolePage(res, 200, 'Sign in', form(SENT), false);
    mailLinks(deps, email).catch((err: unknown) =>
      deps.log.error({ err }, 'console sign-in mail failed'),
    );
  });

  router.get('/console/sign-in/link', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const opened = await deps.accounts.redeem(token);
    if (!opened) {
      consolePage(
        res,
        401,
        'This sign-in link does not work',
        message(
          'This sign-in link does not work',
          'It has expired, was already used, or a newer link replaced it.',
          html`<p><a href="/console/sign-in">Ask for a new link</a></p>`,
        ),
        false,
      );
      return;
    }
    const secure = isHttps(req, deps.publicUrl);
    await deps.accounts.close(readSessionCookie(req, CONSOLE_COOKIE));
    setSessionCookie(res, opened.token, opened.expiresAt, secure, CONSOLE_COOKIE);
    res.redirect(303, '/console');
  });

  router.post(
    '/console/sign-out',
    body,
    requireConsoleSession(deps),
    checkCsrf,
    async (req, res) => {
      await deps.accounts.close(session(res).token);
      clearSessionCookie(res, isHttps(req, deps.publicUrl), CONSOLE_COOKIE);
      res.redirect(303, '/console/sign-in?signed_out=1');
    },
  );
  return router;
}
