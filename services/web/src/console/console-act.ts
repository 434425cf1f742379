/**
 * Pieces the payouts, exports and webhooks pages share: an action runner that shows an
 * operation's refusal (4xx) as a page and redirects on success, the notice an action leaves in
 * the URL it redirects to, and a date cell.
 */
import type { Response } from 'express';
import type { RpcClient } from '@aff/messaging';
import { html } from '../portal/html';
import { consoleCalls, ConsoleReplyError, type ConsoleCalls } from './console-data';
import { consolePage, message, session } from './console-http';

/**
 * Runs an owner's action as the session's merchant; `run` answers where to go next (303, so a
 * reload does not post again). A refusal (404 for another tenant's id, 422 for a state the
 * operation does not allow) is shown with its reason and changes nothing.
 */
export async function act(
  rpc: RpcClient,
  res: Response,
  run: (calls: ConsoleCalls) => Promise<string>,
): Promise<void> {
  let next: string;
  try {
    next = await run(consoleCalls(rpc, res));
  } catch (error) {
    if (!(error instanceof ConsoleReplyError)) throw error;
    const title = error.status === 404 ? 'Not found' : 'Not possible';
    consolePage(res, error.status, title, message('That did not work', reason(error)));
    return;
  }
  res.redirect(303, next);
}

/** The operation's refusal with its details (`No due payout in USD can be exported`). */
export const reason = (error: ConsoleReplyError) => [error.message, ...error.details].join(' ');

/** What an action did, as its redirect says (`?done=`); unknown values show nothing. */
const DONE: Record<string, (n: number) => string> = {
  generated: (n) => `Generated payouts: ${n} payout${n === 1 ? '' : 's'} received due commissions.`,
  created: () => 'Export created. Download its files, pay them, then complete the export.',
  completed: () => 'Export completed: its payouts are being marked paid.',
  canceled: () => 'Export canceled: its payouts are due again.',
  redelivered: () => 'Delivery queued again: it is sent at once.',
  enabled: () => 'Endpoint turned on: new events are delivered to it again.',
  disabled: () => 'Endpoint turned off: no events are delivered to it until it is turned on.',
};

export function notice(query: Record<string, unknown>) {
  // Own keys only: `?done=toString` must not reach Object.prototype.
  const done =
    typeof query.done === 'string' && Object.hasOwn(DONE, query.done)
      ? DONE[query.done]
      : undefined;
  if (!done) return '';
  const n = typeof query.n === 'string' && /^\d{1,6}$/.test(query.n) ? Number(query.n) : 0;
  return html`<p class="notice" role="status">${done(n)}</p>`;
}

/**
 * The CSRF token for the page's action forms, or null for a viewer: a viewer's page has no
 * buttons (the server still refuses a viewer's post with the 403 page).
 */
export const actionToken = (res: Response) => {
  const current = session(res);
  return current.role === 'owner' ? current.csrfToken : null;
};

export const VIEWER_NOTE = html`<p class="muted">
  Your role (viewer) can see everything here but not change it.
</p>`;

export const dateCell = (iso: string) =>
  html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
