/**
 * The portal in real headless Chromium: follow a magic link after a whole journey, read the real
 * numbers, copy a link, change a wallet e-mail, sign out, and be refused when reusing the link.
 * Screenshots at phone and desktop widths go to .local/test-output/.
 */
import path from 'node:path';
import { api } from './support/http';
import { axeProblems } from './support/axe';
import { launchBrowser, outputDir, type TestBrowser } from './support/browser';
import { createMerchant } from './support/merchant';
import { campaignPayingAtOnce, paidJourney } from './support/portal-journey';

let browser: TestBrowser | undefined;
afterAll(async () => {
  await browser?.close();
});

it('shows a real journey behind the magic link; copy, settings, sign-out and a refused reuse work', async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const campaignId = await campaignPayingAtOnce(merchant);
  const journey = await paidJourney(merchant, campaignId, {
    email: 'ada.lovelace@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  const link = journey.affiliate.links[0];
  const sso = (await api(merchant.api_secret).get(`/v1/affiliates/${journey.affiliate.id}/sso`))
    .body.sso.url;

  browser = await launchBrowser();
  const origin = new URL(sso).origin;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await browser.context.newPage();
  // Script errors, Content-Security-Policy violations and failed loads (a missing favicon)
  // show up as console errors; only the two refusals this test provokes on purpose are expected.
  const problems: string[] = [];
  const refusedOnPurpose = new Set([`${origin}/portal`, sso]);
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const { url } = msg.location();
    if (msg.text().startsWith('Failed to load resource') && refusedOnPurpose.has(url)) return;
    problems.push(`${msg.text()} (${url})`);
  });

  // Sign in: the link lands on the dashboard with this journey's numbers.
  await page.goto(sso);
  expect(new URL(page.url()).pathname).toBe('/portal');
  await page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).waitFor();
  expect(await page.locator('[data-stat="visitors"]').textContent()).toBe('2');
  expect(await page.locator('[data-stat="leads"]').textContent()).toBe('1');
  expect(await page.locator('[data-stat="conversions"]').textContent()).toBe('1');
  const usd = page.locator('tr[data-currency="USD"]');
  expect(await usd.locator('[data-state="paid"]').textContent()).toBe('$20.00');
  expect(await usd.locator('[data-state="earned"]').textContent()).toBe('$20.00');
  const payouts = page.locator('section[aria-labelledby="payouts-h"] tbody tr');
  expect(await payouts.count()).toBe(1);
  expect(await payouts.first().textContent()).toMatch(/paid[\s\S]*\$20\.00/);
  const referrals = page.locator('section[aria-labelledby="referrals-h"] tbody tr');
  expect(await referrals.count()).toBe(2);
  expect(await referrals.allTextContents()).toEqual(
    expect.arrayContaining([expect.stringContaining('c***@example.com')]),
  );
  expect((await page.locator('svg[role="img"] desc').textContent())?.trim()).toMatch(
    /^2 visitors, 1 conversions from /,
  );

  const dir = outputDir();
  await page.screenshot({ path: path.join(dir, 'portal-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(dir, 'portal-phone.png'), fullPage: true });
  // On a phone the page does not scroll sideways (wide tables scroll inside their own box)...
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  // ...and those boxes are reachable by keyboard: axe finds nothing serious at phone width.
  expect(await axeProblems(page)).toEqual([]);
  await page.goto(`${origin}/portal/commissions`);
  expect(await axeProblems(page)).toEqual([]);
  await page.goto(`${origin}/portal`);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Keyboard: the first Tab reaches the skip link.
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');

  // Copy a link.
  const copy = page.getByRole('button', { name: `Copy link ${link.token}` });
  await copy.click();
  await page
    .getByRole('button', { name: `Copy link ${link.token}` })
    .filter({ hasText: 'Copied' })
    .waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link.url);

  // Change a wallet e-mail: pending until confirmed from the account mailbox.
  await page.getByLabel('Wallet A e-mail').fill('ada-wallet@example.com');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('a new wallet receives payouts once you follow it').waitFor();
  expect(await page.getByLabel('Wallet A e-mail').inputValue()).toBe('');
  expect(await page.locator('#wallet_a_email-help').textContent()).toMatch(
    /Pending:\s+ada-wallet@example\.com/,
  );
  const stored = await api(merchant.api_secret).get(`/v1/affiliates/${journey.affiliate.id}`);
  expect(stored.body).toMatchObject({
    wallet_a_email: null,
    unconfirmed_wallet_a_email: 'ada-wallet@example.com',
  });

  // Sign out; the dashboard is gone.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  const after = await page.goto(`${origin}/portal`);
  expect(after?.status()).toBe(401);
  expect(await page.getByRole('heading', { name: 'You are not signed in' }).count()).toBe(1);

  // The same magic link again: refused with a page that says what to do.
  const reused = await page.goto(sso);
  expect(reused?.status()).toBe(401);
  expect(await page.textContent('main')).toContain(
    'Ask the program you work with for a new sign-in link',
  );
  await page.screenshot({ path: path.join(dir, 'portal-link-refused.png') });
  expect(problems).toEqual([]);
}, 180_000);
