/**
 * Plays a merchant's browser against the console over plain HTTP (cookie kept by the caller),
 * and sets up what the console's pages show (users, held referrals).
 */
import { randomUUID } from 'node:crypto';
import type { CommissionView } from '@aff/contracts';
import { merchantClient } from './client';
import { charge, createAffiliate, referredCustomer, waitForCommissions } from './journey';
import { runOps, type TestMerchant } from './merchant';
import { eventually } from './processor';
import { csrfOf, pageRequest, type PageResponse } from './portal';
import { mailsTo } from './smtp-sink';

export type ConsoleResponse = PageResponse;

/**
 * A console GET or form POST. A form with `_csrf` and no `_key` gets a key of its own, as a
 * freshly rendered console form carries (each form is single use, services/web/src/console/
 * form-keys.ts); a test that posts one form twice passes its `_key` itself.
 */
export function consoleRequest(path: string, opts: Parameters<typeof pageRequest>[1] = {}) {
  const form = opts.form;
  if (!form) return pageRequest(path, opts);
  const pairs = Array.isArray(form) ? form : Object.entries(form);
  const names = new Set(pairs.map(([name]) => name));
  const keyed =
    names.has('_csrf') && !names.has('_key') ? [...pairs, ['_key', randomUUID()]] : pairs;
  return pageRequest(path, { ...opts, form: keyed as [string, string][] });
}

/** The single-use keys of a page's forms, in page order. */
export const formKeysOf = (html: string) =>
  [...html.matchAll(/name="_key" value="([^"]+)"/g)].map((m) => m[1]!);

/** `console:invite` through the real ops CLI; the parsed `--json` output. */
export async function invite(merchantId: string, email: string, role: 'owner' | 'viewer') {
  const out = await runOps([
    'console:invite',
    '--merchant',
    merchantId,
    '--email',
    email,
    '--role',
    role,
    '--json',
  ]);
  if (out.code !== 0) throw new Error(`console:invite: ${out.code} ${out.stderr}`);
  return JSON.parse(out.stdout) as { user_id: string; sign_in_url: string };
}

export const pathOf = (url: string) => url.slice(url.indexOf('/console/'));

/** Follows a sign-in link; returns the session cookie (`name=value`). */
export async function followLink(url: string) {
  const answer = await consoleRequest(pathOf(url));
  if (answer.status !== 303) throw new Error(`sign-in: ${answer.status} ${answer.text}`);
  return { cookie: answer.setCookie[0]!.split(';')[0]!, answer };
}

/** The sign-in links mailed to an address so far (newest last). */
export const linksMailedTo = (address: string, count = 1) =>
  eventually(async () => {
    const links = mailsTo(address)
      .map((m) => /https?:\/\/\S+\/console\/sign-in\/link\?token=[A-Za-z0-9_-]+/.exec(m.text)?.[0])
      .filter((link): link is string => Boolean(link));
    return links.length >= count ? links : undefined;
  }, 20_000);

/** A console user of the merchant, signed in: its session cookie and the pages' CSRF token. */
export async function consoleSession(merchantId: string, role: 'owner' | 'viewer') {
  const invited = await invite(merchantId, `${role}-${randomUUID()}@example.com`, role);
  const { cookie } = await followLink(invited.sign_in_url);
  const page = await consoleRequest('/console/affiliates', { cookie });
  if (page.status !== 200) throw new Error(`console page: ${page.status}`);
  return { cookie, csrf: csrfOf(page.text) };
}

/** A campaign that holds referrals with a disposable customer e-mail, commissions due at once. */
export async function holdingCampaign(merchant: TestMerchant): Promise<string> {
  const campaign = await merchantClient(merchant.api_secret).campaigns.create({
    name: `Holds ${randomUUID()}`,
    days_until_commissions_are_due: 0,
    fraud_policy: { disposable_email: 'hold' },
  } as never);
  return campaign.id;
}

/**
 * A referral held for review (its customer's e-mail is disposable), of a new affiliate of the
 * holding campaign; with `amount`, that customer is charged and the held commission awaited.
 */
export async function heldReferral(
  merchant: TestMerchant,
  campaignId: string,
  opts: { first_name?: string; amount?: number } = {},
) {
  const affiliate = await createAffiliate(merchant, {
    campaign_id: campaignId,
    first_name: opts.first_name ?? 'Held',
    last_name: `Aff${randomUUID().slice(0, 6)}`,
  });
  const customer = await referredCustomer(merchant, affiliate, `${randomUUID()}@mailinator.com`);
  const client = merchantClient(merchant.api_secret);
  await eventually(async () => {
    const referral = await client.referrals.get({ id: customer.referralId });
    return referral.review_state === 'open' ? true : undefined;
  });
  let commission: CommissionView | undefined;
  if (opts.amount !== undefined) {
    await charge(merchant, customer.customerId, { amount: opts.amount });
    [commission] = await waitForCommissions(merchant, affiliate.id, (list) => list.length === 1);
  }
  return { affiliate, referralId: customer.referralId, customer, commission };
}
