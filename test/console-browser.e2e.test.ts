/**
 * The console in real headless Chromium: sign in by asking for a link on the form and following
 * the mailed one, find an affiliate, disable it, sign out. The sign-in and affiliates pages pass
 * axe-core at phone and desktop widths, do not scroll sideways on a phone, and nothing reaches
 * the browser console. Screenshots go to .local/test-output/.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { axeProblems } from './support/axe';
import { launchBrowser, outputDir, type TestBrowser } from './support/browser';
import { invite, linksMailedTo } from './support/console';
import { createAffiliate } from './support/journey';
import { createMerchant } from './support/merchant';

let browser: TestBrowser | undefined;
afterAll(async () => {
  await browser?.close();
});

it('an owner signs in by a mailed link, finds and disables an affiliate, and signs out', async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const email = `owner-${randomUUID()}@example.com`;
  const invited = await invite(merchant.merchant_id, email, 'owner');
  const affiliateEmail = `grace-${randomUUID()}@example.com`;
  const affiliate = await createAffiliate(merchant, {
    email: affiliateEmail,
    first_name: 'Grace',
    last_name: 'Hopper',
  });
  const origin = new URL(invited.sign_in_url).origin;

  browser = await launchBrowser({ width: 390, height: 844 });
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`${msg.text()} (${msg.location().url})`);
  });
  const dir = outputDir();
  const noSidewaysScroll = async (width: number) =>
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);

  // Phone width: the sign-in form, then a link by mail (the invite's was the first).
  await page.goto(`${origin}/console/sign-in`);
  expect(await page.getAttribute('html', 'lang')).toBe('en');
  expect(await axeProblems(page)).toEqual([]);
  await noSidewaysScroll(390);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Mail me a sign-in link' }).click();
  await page.getByText('a sign-in link is on its way').waitFor();
  const [, link] = await linksMailedTo(email, 2);
  await page.goto(link!);
  // The link opens the overview; the navigation leads to the affiliates.
  expect(new URL(page.url()).pathname).toBe('/console');
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Affiliates' })
    .click();
  await page.waitForURL('**/console/affiliates');

  await page.getByLabel('Name, e-mail or link token').fill(affiliateEmail);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('cell', { name: affiliateEmail }).waitFor();
  expect(new URL(page.url()).searchParams.get('q')).toBe(affiliateEmail);
  expect(await axeProblems(page)).toEqual([]);
  await noSidewaysScroll(390);
  await page.screenshot({ path: path.join(dir, 'console-affiliates-phone.png'), fullPage: true });

  // Desktop width: disable the affiliate; the REST API sees it.
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await axeProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Disable Grace Hopper' }).click();
  await page.getByRole('button', { name: 'Enable Grace Hopper' }).waitFor();
  await page.screenshot({ path: path.join(dir, 'console-affiliates-desktop.png'), fullPage: true });
  const rest = await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`);
  expect(rest.body.state).toBe('disabled');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are signed out.').waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await page.goto(`${origin}/console/affiliates`);
  expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  expect(problems).toEqual([]);
}, 180_000);
