/**
 * The link mailed to an affiliate's account e-mail when a new wallet address is asked for: a
 * GET shows a button, the POST confirms (mail scanners that open links must not use up the
 * single-use token). Public: the token alone says whose wallet it is.
 */
import express, { type RequestHandler, type Router } from 'express';
import { type AppError, isAppError } from '@aff/api';
import { OPERATIONS } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import { html } from './html';
import { messageBody } from './other-pages';
import { page } from './portal-http';

const TITLE = 'Confirm your new payout wallet';

export function confirmWalletRoutes(deps: { rpc: RpcClient }, form: RequestHandler): Router {
  const router = express.Router();

  router.get('/portal/confirm-wallet', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    page(res, 200, TITLE, {
      body: messageBody(
        TITLE,
        'Confirm that your commissions should be paid to the new wallet address you asked for.',
        html`<form method="post" action="/portal/confirm-wallet">
          <input type="hidden" name="token" value="${token}" />
          <button type="submit">Confirm wallet</button>
        </form>`,
      ),
    });
  });

  router.post('/portal/confirm-wallet', form, async (req, res) => {
    const sent = (req.body as Record<string, unknown> | undefined)?.token;
    const token = typeof sent === 'string' ? sent : '';
    const confirmed = await callInternal(
      deps.rpc,
      OPERATIONS.confirmWallet,
      { token },
      res.locals.requestId as string,
    ).catch(refusal);
    if (!isAppError(confirmed)) {
      page(res, 200, 'Wallet confirmed', {
        body: messageBody(
          'Wallet confirmed',
          `Payouts to wallet ${confirmed.wallet.toUpperCase()} now go to ${confirmed.email}.`,
        ),
      });
      return;
    }
    page(res, confirmed.status, 'This confirmation link does not work', {
      body: messageBody(
        'This confirmation link does not work',
        'It has expired, was already used, or a newer change replaced it. Your payouts still go where they went. To get a new link, enter the wallet address again in the dashboard.',
      ),
    });
  });

  return router;
}

/** A refused token (4xx) is the page's answer; anything else goes on to the portal's error page. */
function refusal(error: unknown): AppError {
  if (isAppError(error) && error.status < 500) return error;
  throw error;
}
