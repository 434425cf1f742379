/**
 * Set-ups for the console's payouts and webhooks tests: signed-in console users, affiliates
 * with confirmed wallets and due payouts (the payout service's export fixtures), and a download
 * read with its headers.
 */
import { randomUUID } from 'node:crypto';
import type { AffiliateView } from '@aff/contracts';
import { api, basicAuth, gatewayUrl } from './http';
import { csrfOf } from './portal';
import { consoleRequest, followLink, invite } from './console';
import { duePayout, setWallets } from '../../services/payout/test/support/export-fixtures';

/** A console user of the merchant, signed in: cookie, CSRF token and user id. */
export async function consoleUser(merchantId: string, role: 'owner' | 'viewer') {
  const invited = await invite(merchantId, `${role}-${randomUUID()}@example.com`, role);
  const { cookie } = await followLink(invited.sign_in_url);
  const page = await consoleRequest('/console/affiliates', { cookie });
  if (page.status !== 200) throw new Error(`console page: ${page.status}`);
  return { cookie, csrf: csrfOf(page.text), userId: invited.user_id };
}

/** An owner and a viewer of the merchant's console, signed in (in that order). */
export const ownerAndViewer = (merchantId: string) =>
  Promise.all([consoleUser(merchantId, 'owner'), consoleUser(merchantId, 'viewer')]);

/** An affiliate with both wallets confirmed and a due payout of `amount` in `currency`. */
export async function payableAffiliate(
  secret: string,
  merchantId: string,
  amount: number,
  currency: string,
) {
  const client = api(secret);
  const name = `Pay${randomUUID().slice(0, 6)}`;
  const created = await client.post('/v1/affiliates', {
    first_name: name,
    last_name: 'Tester',
    email: `${name.toLowerCase()}-${randomUUID()}@example.com`,
  });
  if (created.status !== 200) throw new Error(`affiliate: ${created.status}`);
  const affiliate = await setWallets(merchantId, created.body as AffiliateView, {
    a: { email: `${name.toLowerCase()}-a@wallet.example`, confirmed: true },
    b: { email: `${name.toLowerCase()}-b@wallet.example`, confirmed: true },
  });
  const payout = await duePayout(client, merchantId, affiliate, amount, currency);
  return { affiliate, payout };
}

/** A GET as the browser downloads a file: status, the headers that matter, the text. */
export async function download(path: string, opts: { cookie?: string; secret?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.secret) headers.authorization = basicAuth(opts.secret);
  const res = await fetch(`${gatewayUrl()}${path}`, { headers, redirect: 'manual' });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    text: await res.text(),
  };
}
