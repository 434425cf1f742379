/**
 * The overview, an affiliate's page, its referrals and the campaigns page in real headless
 * Chromium: an owner lands on the overview (figures and chart), follows the navigation to an
 * affiliate and marks it suspicious, follows its "All 2 referrals" link to the referrals page
 * filtered to it, then creates a campaign with a fraud policy in the form; the REST API sees both.
 * Every page passes at phone and desktop widths (lang, axe-core with no serious or critical
 * violation, no sideways scroll) and nothing reaches the browser console. A viewer's affiliate
 * page has no action. Desktop screenshots go to .local/test-output/ (copied to
 * docs/console-overview.png, docs/console-affiliate.png, docs/console-referrals.png and
 * docs/console-campaigns.png).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { api } from './support/http';
import { outputDir } from './support/browser';
import { invite } from './support/console';
import {
  DESKTOP,
  PHONE,
  pageProblems,
  signedInBrowser,
  type ConsoleBrowser,
} from './support/console-browser';
import { charge, createAffiliate, referredCustomer, visitOf } from './support/journey';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';

const opened: ConsoleBrowser[] = [];
afterAll(async () => {
  for (const one of opened) await one.browser.close();
});

it('an owner reads the overview, acts on an affiliate and creates a campaign; a viewer only sees', async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const ada = await createAffiliate(merchant, { first_name: 'Ada', last_name: 'Lovelace' });
  await createAffiliate(merchant, { first_name: 'Alan', last_name: 'Turing' });
  const customer = await referredCustomer(merchant, ada);
  await visitOf(merchant, ada.links[0].token);
  await charge(merchant, customer.customerId, { amount: 12_500 });
  await eventually(async () => {
    const a = await api(merchant.api_secret).get(`/v1/affiliates/${ada.id}`);
    return a.body.conversions === 1 ? true : undefined;
  });
  // A reading three days ago (before the traffic), so the overview draws its chart.
  const webDb = await mongoose
    .createConnection(process.env.MONGO_URL!, { dbName: 'web' })
    .asPromise();
  const day = new Date(Date.now() - 3 * 86_400_000);
  await webDb.collection('console_stat_days').insertOne({
    _id: `${merchant.merchant_id}:${day.toISOString().slice(0, 10)}` as never,
    merchant_id: merchant.merchant_id,
    day: day.toISOString().slice(0, 10),
    at: day,
    totals: { visitors: 0, leads: 0, conversions: 0, commission_stats: { currencies: {} } },
  });
  await webDb.close();

  const invited = await invite(merchant.merchant_id, `owner-${randomUUID()}@example.com`, 'owner');
  const owner = await signedInBrowser(invited.sign_in_url);
  opened.push(owner);
  const { page, problems } = owner;
  const dir = outputDir();

  // The overview: the sign-in link lands there.
  expect(new URL(page.url()).pathname).toBe('/console');
  await page.getByRole('heading', { name: 'Program to date' }).waitFor();
  expect(await page.locator('[data-stat="window-visitors"]').textContent()).toContain('2');
  await page.getByRole('img', { name: /Visitors, leads and conversions per day/ }).waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-overview.png'), fullPage: true });

  // An affiliate's page, through the navigation and the list, at both widths; then an action.
  await page.setViewportSize(PHONE);
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Affiliates' })
    .click();
  await page.getByRole('link', { name: 'Ada Lovelace' }).click();
  await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-affiliate.png'), fullPage: true });
  await page.getByRole('button', { name: 'Mark suspicious' }).click();
  await page.getByText('Affiliate marked suspicious.').waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect((await api(merchant.api_secret).get(`/v1/affiliates/${ada.id}`)).body.state).toBe(
    'suspicious',
  );

  // All of the affiliate's referrals (a visit and a customer), from its page, at both widths.
  await page.getByRole('link', { name: 'All 2 referrals' }).click();
  await page.waitForURL(/\/console\/referrals\?/); // its own page also has a Referrals heading
  expect(new URL(page.url()).search).toBe(`?affiliate_id=${ada.id}`);
  expect(await page.locator('tr[data-id]').count()).toBe(2);
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-referrals.png'), fullPage: true });
  await page.setViewportSize(PHONE);

  // Campaigns: the list and a new campaign with a fraud policy, from the form.
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Campaigns' })
    .click();
  await page.getByRole('heading', { name: 'New campaign' }).waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-campaigns.png'), fullPage: true });
  await page.setViewportSize(PHONE);
  const name = `Autumn ${randomUUID().slice(0, 6)}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel(/Commission percent/).fill('12');
  await page.getByLabel('paid_ads').selectOption('hold');
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.getByText('Campaign created.').waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  const campaigns = await api(merchant.api_secret).get('/v1/campaigns?limit=100');
  expect(campaigns.body.data.find((c: any) => c.name === name)).toMatchObject({
    commission_percent: 12,
    fraud_policy: { paid_ads: 'hold' },
  });
  expect(problems).toEqual([]);

  // A viewer: the same affiliate page, no action.
  const invitedViewer = await invite(
    merchant.merchant_id,
    `v-${randomUUID()}@example.com`,
    'viewer',
  );
  const viewer = await signedInBrowser(invitedViewer.sign_in_url);
  opened.push(viewer);
  await viewer.page.goto(new URL(`/console/affiliates/${ada.id}`, invited.sign_in_url).href);
  await viewer.page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
  expect(await viewer.page.getByRole('button', { name: 'Mark suspicious' }).count()).toBe(0);
  expect(await viewer.page.getByRole('button', { name: 'Enable' }).count()).toBe(0);
  expect(await pageProblems(viewer.page, PHONE)).toEqual([]);
  expect(viewer.problems).toEqual([]);
}, 180_000);
