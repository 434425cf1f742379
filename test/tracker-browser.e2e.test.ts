/**
 * tracker.js on a merchant's page in real headless Chromium: a visit through `?via=` leaves the
 * referral in a first-party cookie, a second page view counts on the same referral, `lead()`
 * turns the visitor into a lead, and a visit refused for now (503, 429) is sent again and
 * counted once. The merchant's page is served from its own origin, as on a real site.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { api, gatewayUrl } from './support/http';
import { createAffiliate } from './support/journey';
import { launchBrowser, type TestBrowser } from './support/browser';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';

let browser: TestBrowser | undefined;
let site: http.Server | undefined;
let siteUrl = '';
let merchant: TestMerchant;
let affiliate: Awaited<ReturnType<typeof createAffiliate>>;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  affiliate = await createAffiliate(merchant, { first_name: 'Tia', last_name: 'Browser' });
  site = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><title>Shop</title><h1>Shop</h1>` +
        `<script src="${gatewayUrl()}/t/v1/tracker.js" data-key="${merchant.public_key}"></script>`,
    );
  });
  await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  // "localhost", not the gateway's 127.0.0.1: another origin, as a merchant's shop is.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** The one (persistent) browser context, with no cookies and no routes left by a test before. */
async function freshContext(): Promise<BrowserContext> {
  const context = browser!.context;
  await context.clearCookies();
  await context.unrouteAll();
  for (const page of context.pages()) await page.close();
  return context;
}

const referralCookieOf = async (context: BrowserContext) =>
  (await context.cookies(siteUrl)).find((c) => c.name === 'aff_referral');
const referralCookie = async (context: BrowserContext) => (await referralCookieOf(context))?.value;

async function openThroughLink(page: Page): Promise<string> {
  await page.goto(`${siteUrl}/products?via=${encodeURIComponent(affiliate.links[0].token)}`);
  return eventually(() => referralCookie(page.context()));
}

const referralsOfAffiliate = async (): Promise<string[]> =>
  (
    await api(merchant.api_secret).get(`/v1/referrals?affiliate_id=${affiliate.id}&limit=100`)
  ).body.data.map((r: { id: string }) => r.id);

const readReferral = async (id: string) =>
  (await api(merchant.api_secret).get(`/v1/referrals/${id}`)).body;

it('keeps the referral in a first-party cookie, counts a second visit on it, and records a lead', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  const referralId = await openThroughLink(page);
  expect(await readReferral(referralId)).toMatchObject({
    id: referralId,
    visits: 1,
    conversion_state: 'visitor',
  });
  const cookie = (await referralCookieOf(context))!;
  const days = (cookie.expires * 1000 - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(59);

  await openThroughLink(page);
  expect(await referralCookie(context)).toBe(referralId);
  await eventually(async () => ((await readReferral(referralId)).visits === 2 ? true : undefined));

  const answer = (await page.evaluate(
    "window.affiliateTracker.lead('tia.lead@example.com', 'Tia Lead')",
  )) as { referral: unknown };
  // Answered like a visit (the referral's state is for the merchant's API to tell).
  expect(answer.referral).toEqual({ id: referralId, expires_at: expect.any(String) });
  expect(await readReferral(referralId)).toMatchObject({
    conversion_state: 'lead',
    visits: 2,
  });
});

it.each([
  [503, { error: 'Service unavailable: tracking. Try again shortly.' }],
  [429, { error: 'Rate limit exceeded. Retry in 1 seconds.' }],
])(
  'sends a visit refused with %i again, and it is counted once',
  async (status, body) => {
    const context = await freshContext();
    const before = await referralsOfAffiliate();
    const page = await context.newPage();
    const attempts: string[] = [];
    // The first attempt is answered as the gateway answers while the intake fails over (or
    // the visitor is over the limit); later ones go to the real gateway.
    await page.route('**/t/v1/visits', async (route) => {
      attempts.push(route.request().method());
      if (attempts.length === 1) {
        await route.fulfill({
          status,
          headers: {
            'access-control-allow-origin': '*',
            'access-control-expose-headers': 'Retry-After',
            'retry-after': '1',
          },
          contentType: 'application/json',
          body: JSON.stringify(body),
        });
      } else {
        await route.continue();
      }
    });
    const referralId = await openThroughLink(page);
    expect(attempts).toEqual(['POST', 'POST']);
    expect(await readReferral(referralId)).toMatchObject({ id: referralId, visits: 1 });
    // Lists wait for queued visits, so this is every referral the page made: one.
    const made = (await referralsOfAffiliate()).filter((id) => !before.includes(id));
    expect(made).toEqual([referralId]);
  },
  30_000,
);

it('sends a refused visit (an unknown link, 404) once: only 503 and 429 are tried again', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  const answers: number[] = [];
  page.on('response', (res) => {
    if (res.url().endsWith('/t/v1/visits') && res.request().method() === 'POST')
      answers.push(res.status());
  });
  await page.goto(`${siteUrl}/products?via=no-such-token`);
  await eventually(async () => (answers.length > 0 ? true : undefined));
  // A retry would follow after 1 s; wait past it.
  await page.waitForTimeout(1_500);
  expect(answers).toEqual([404]);
  expect(await referralCookie(context)).toBeUndefined();
});

it('exposes Retry-After to the page, so the tracker can wait as long as the gateway says', async () => {
  const res = await fetch(`${gatewayUrl()}/t/v1/visits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: siteUrl },
    body: JSON.stringify({ key: merchant.public_key, token: affiliate.links[0].token }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After');
});
