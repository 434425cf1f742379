/**
 * The affiliate portal: sign-in by magic link, a server-rendered dashboard, settings, sign-out,
 * and the e-mail confirmation link. HTML only; data comes from the owning services.
 */
import express, { type Request, type Response, type Router } from 'express';
import { type AppError, isAppError } from '@aff/api';
import { OPERATIONS, type AffiliateView } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import { callInternal, type RpcClient } from '@aff/messaging';
import { loadDashboard } from './dashboard-loader';
import { html } from './html';
import { dashboardBody } from './dashboard-page';
import {
  commissionBody,
  commissionsBody,
  messageBody,
  payoutBody,
  payoutsBody,
  referralsBody,
} from './other-pages';
import { PortalData, PortalReplyError } from './portal-data';
import { confirmWalletRoutes } from './confirm-wallet-routes';
import {
  ASK_AGAIN,
  checkCsrf,
  locals,
  notFound,
  page,
  portalErrors,
  requireSession,
  securityHeaders,
} from './portal-http';
import type { PortalSessions } from './portal-sessions';
import { clearSessionCookie, isHttps, readSessionCookie, setSessionCookie } from './session-cookie';

export interface PortalDeps {
  rpc: RpcClient;
  sessions: PortalSessions;
  publicUrl: string;
  log: Logger;
}

export function portalRouter(deps: PortalDeps): Router {
  const router = express.Router();
  router.use('/portal', securityHeaders);
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

  router.get('/portal/sso', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const redeemed = await callInternal(
      deps.rpc,
      OPERATIONS.redeemMagicLink,
      { token },
      requestId(res),
    ).catch(refusal);
    if (isAppError(redeemed)) {
      page(res, redeemed.status, 'This sign-in link does not work', {
        body: messageBody(
          'This sign-in link does not work',
          `It has expired, was already used, or a newer link replaced it. ${ASK_AGAIN}`,
        ),
      });
      return;
    }
    const { merchant_id: merchantId, affiliate } = redeemed;
    await deps.sessions.close(readSessionCookie(req));
    const opened = await deps.sessions.open(
      merchantId,
      affiliate.id,
      `${affiliate.first_name} ${affiliate.last_name}`,
    );
    setSessionCookie(res, opened.token, opened.session.expiresAt, isHttps(req, deps.publicUrl));
    // The gateway announces it (affiliate.signed_in): only it holds the address and the salts.
    res.locals.signedIn = { merchant_id: merchantId, affiliate_id: affiliate.id };
    res.redirect(303, '/portal');
  });

  // Opening the mailed link only shows a button: mail scanners that fetch links must not use
  // up the single-use token; the confirmation itself is the POST.
  router.get('/portal/confirm-email', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    page(res, 200, 'Confirm your e-mail address', {
      body: messageBody(
        'Confirm your e-mail address',
        'Confirm that this address should become the e-mail of your affiliate account.',
        html`<form method="post" action="/portal/confirm-email">
          <input type="hidden" name="token" value="${token}" />
          <button type="submit">Confirm e-mail address</button>
        </form>`,
      ),
    });
  });

  router.post('/portal/confirm-email', form, async (req, res) => {
    const sent = (req.body as Record<string, unknown> | undefined)?.token;
    const token = typeof sent === 'string' ? sent : '';
    const confirmed = await callInternal(
      deps.rpc,
      OPERATIONS.confirmEmail,
      { token },
      requestId(res),
    ).catch(refusal);
    if (!isAppError(confirmed)) {
      page(res, 200, 'E-mail confirmed', {
        body: messageBody(
          'E-mail confirmed',
          `Your account e-mail is now ${confirmed.affiliate.email}.`,
        ),
      });
      return;
    }
    page(res, confirmed.status, 'This confirmation link does not work', {
      body: messageBody(
        'This confirmation link does not work',
        `${confirmed.details?.[0] ?? 'It has expired, was already used, or a newer change replaced it.'} To get a new link, change your e-mail again in the dashboard.`,
      ),
    });
  });

  router.use(confirmWalletRoutes(deps, form));

  router.get('/portal/signed-out', (_req, res) => {
    page(res, 200, 'Signed out', {
      body: messageBody(
        'You are signed out',
        'To sign in again, ask the program you work with for a new sign-in link.',
      ),
    });
  });

  router.use('/portal', requireSession(deps));

  router.get('/portal', async (req, res) => {
    const data = portalData(deps, res);
    const model = await loadDashboard(data, locals(res).session.csrfToken);
    model.notice = noticeText(req.query.notice);
    page(res, 200, 'Dashboard', { body: dashboardBody(model), signedIn: true });
  });

  router.post('/portal/settings', form, checkCsrf, async (req, res) => {
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const text = (name: string) =>
      typeof fields[name] === 'string' ? (fields[name] as string) : '';
    const data = portalData(deps, res);
    const before = await data.affiliate();
    const body: Record<string, string> = {
      wallet_a_email: text('wallet_a_email'),
      wallet_b_email: text('wallet_b_email'),
      // An unticked checkbox sends nothing: absence means "off".
      receive_new_commission_notifications: text('receive_new_commission_notifications')
        ? 'true'
        : 'false',
      ...(text('email') ? { email: text('email') } : {}),
    };
    try {
      const after = await data.updateSettings(body);
      const notice =
        after.unconfirmed_email && after.unconfirmed_email !== before.unconfirmed_email
          ? 'confirm'
          : walletRequested(body, before)
            ? 'confirm-wallet'
            : 'saved';
      res.redirect(303, `/portal?notice=${notice}`);
    } catch (error) {
      if (!(error instanceof PortalReplyError) || error.status !== 422) throw error;
      const model = await loadDashboard(data, locals(res).session.csrfToken);
      model.formErrors = error.details.length ? error.details : [error.message];
      page(res, 422, 'Dashboard', { body: dashboardBody(model), signedIn: true });
    }
  });

  router.post('/portal/sign-out', form, checkCsrf, async (req, res) => {
    await deps.sessions.close(locals(res).token);
    clearSessionCookie(res, isHttps(req, deps.publicUrl));
    res.redirect(303, '/portal/signed-out');
  });

  router.get('/portal/referrals', async (req, res) => {
    const list = await portalData(deps, res).referrals(pageQuery(req));
    page(res, 200, 'Referrals', { body: referralsBody(list), signedIn: true });
  });

  router.get('/portal/commissions', async (req, res) => {
    const filter = ['pending', 'due', 'paid', 'voided'].includes(String(req.query.state))
      ? String(req.query.state)
      : '';
    const list = await portalData(deps, res).commissions({
      ...pageQuery(req),
      ...(filter ? { state: filter } : {}),
    });
    page(res, 200, 'Commissions', { body: commissionsBody(list, filter), signedIn: true });
  });

  router.get('/portal/commissions/:id', async (req, res) => {
    const commission = await portalData(deps, res).commission(String(req.params.id));
    if (!commission) return notFound(res);
    page(res, 200, 'Commission', { body: commissionBody(commission), signedIn: true });
  });

  router.get('/portal/payouts', async (req, res) => {
    const list = await portalData(deps, res).payouts(pageQuery(req));
    page(res, 200, 'Payouts', { body: payoutsBody(list), signedIn: true });
  });

  router.get('/portal/payouts/:id', async (req, res) => {
    const payout = await portalData(deps, res).payout(String(req.params.id));
    if (!payout) return notFound(res);
    page(res, 200, 'Payout', { body: payoutBody(payout), signedIn: true });
  });

  router.use('/portal', (_req, res) => notFound(res));
  router.use('/portal', portalErrors(deps.log));
  return router;
}

const requestId = (res: Response) => res.locals.requestId as string;
const portalData = (deps: PortalDeps, res: Response) =>
  new PortalData(deps.rpc, locals(res).session, requestId(res));

/** Only the page number passes through; everything else a list gets comes from the session. */
function pageQuery(req: Request): Record<string, unknown> {
  const pageNumber = typeof req.query.page === 'string' ? req.query.page : undefined;
  return pageNumber ? { page: pageNumber, limit: '25' } : { limit: '25' };
}

/**
 * A refused token (4xx) is the page's answer; anything else (the affiliate service down or
 * failing) goes on to `portalErrors`, which shows "Portal unavailable".
 */
function refusal(error: unknown): AppError {
  if (isAppError(error) && error.status < 500) return error;
  throw error;
}

function noticeText(notice: unknown): string | undefined {
  if (notice === 'saved') return 'Your settings are saved.';
  if (notice === 'confirm')
    return 'Your settings are saved. We sent a confirmation link to your new e-mail address; the change takes effect once you follow it.';
  if (notice === 'confirm-wallet')
    return 'Your settings are saved. We sent a link to your account e-mail; a new wallet receives payouts once you follow it.';
  return undefined;
}

/** A wallet address other than the current one was sent (it is now pending confirmation). */
function walletRequested(body: Record<string, string>, before: AffiliateView): boolean {
  return (['wallet_a_email', 'wallet_b_email'] as const).some(
    (field) => body[field] && body[field].trim().toLowerCase() !== before[field],
  );
}
