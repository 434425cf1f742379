/** Plays an affiliate's browser against the portal over plain HTTP, keeping the session cookie. */
import { api, gatewayUrl } from './http';
import type { TestMerchant } from './merchant';
import type { ReceivedMail } from './smtp-sink';

/** A page's answer as a browser would see it (redirects not followed). */
export interface PageResponse {
  status: number;
  location: string | null;
  setCookie: string[];
  text: string;
}
export type PortalResponse = PageResponse;

/**
 * A GET, or a form POST when `form` is given, to a page of the portal or the console. A form as
 * pairs can repeat a name (ticked checkboxes).
 */
export async function pageRequest(
  path: string,
  opts: {
    cookie?: string;
    form?: Record<string, string> | [string, string][];
    origin?: string;
  } = {},
): Promise<PageResponse> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  let body: string | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(`${gatewayUrl()}${path}`, {
    method: opts.form ? 'POST' : 'GET',
    headers,
    body,
    redirect: 'manual',
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    setCookie: res.headers.getSetCookie(),
    text: await res.text(),
  };
}

export const portalRequest = pageRequest;

/** The path (from `/portal/`) of a fresh magic link for the affiliate. */
export async function magicLinkPath(merchant: TestMerchant, affiliateId: string): Promise<string> {
  const res = await api(merchant.api_secret).get(`/v1/affiliates/${affiliateId}/sso`);
  if (res.status !== 200) throw new Error(`sso: ${res.status} ${JSON.stringify(res.body)}`);
  const url: string = res.body.sso.url;
  return url.slice(url.indexOf('/portal/'));
}

/** Follows a fresh magic link; returns the session cookie (`name=value`) and the raw answer. */
export async function signIn(merchant: TestMerchant, affiliateId: string) {
  const answer = await portalRequest(await magicLinkPath(merchant, affiliateId));
  if (answer.status !== 303) throw new Error(`sign-in: ${answer.status} ${answer.text}`);
  const cookie = answer.setCookie[0]!.split(';')[0]!;
  return { cookie, answer };
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token in the page');
  return match[1]!;
}

/** A page a mailed single-use link opens: a new account e-mail's or a new payout wallet's. */
export type ConfirmationPage = 'confirm-email' | 'confirm-wallet';

/**
 * For the `page` links mailed to affiliates: `linkIn` gives the path (from `/portal/`) of the
 * link in a mail; `confirmByLink` opens such a path (a page with a button, so link scanners use
 * nothing up) and confirms with the token that page carries.
 */
export function mailedConfirmation(page: ConfirmationPage) {
  const link = new RegExp(`https?://\\S+/portal/${page}\\?token=[A-Za-z0-9_-]+`);
  const linkIn = (mail: ReceivedMail): string => {
    const url = link.exec(mail.text)?.[0];
    if (!url) throw new Error(`no ${page} link in: ${mail.text}`);
    return url.slice(url.indexOf('/portal/'));
  };
  const confirmByLink = async (path: string) => {
    const opened = await portalRequest(path);
    expect(opened.status).toBe(200);
    const token = /name="token" value="([^"]*)"/.exec(opened.text)?.[1] ?? '';
    expect(path).toContain(`token=${token}`);
    return portalRequest(`/portal/${page}`, { form: { token } });
  };
  return { linkIn, confirmByLink };
}
