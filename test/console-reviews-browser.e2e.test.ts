/**
 * The review queue and the commissions page in real headless Chromium: an owner approves a held
 * referral and voids its (released) commission with the pages' own buttons, and the REST API
 * sees both. Both pages pass at phone and desktop widths (lang, axe-core, no sideways scroll),
 * and nothing reaches the browser console. A viewer sees both pages without a button or a
 * checkbox. Desktop screenshots go to .local/test-output/ (copied to docs/console-reviews.png
 * and docs/console-commissions.png).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { outputDir } from './support/browser';
import { heldReferral, holdingCampaign, invite } from './support/console';
import {
  DESKTOP,
  PHONE,
  pageProblems,
  signedInBrowser,
  type ConsoleBrowser,
} from './support/console-browser';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';

let open: ConsoleBrowser | undefined;
afterAll(async () => {
  await open?.browser.close();
});

it('an owner approves a held referral and voids its commission in the browser; a viewer only sees', async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const campaignId = await holdingCampaign(merchant);
  const held = await heldReferral(merchant, campaignId, { first_name: 'Grace', amount: 12_500 });
  await heldReferral(merchant, campaignId, { first_name: 'Alan', amount: 8_000 });
  const name = `Grace ${held.affiliate.last_name}`;
  const invited = await invite(merchant.merchant_id, `owner-${randomUUID()}@example.com`, 'owner');
  open = await signedInBrowser(invited.sign_in_url);
  const { page, problems } = open;
  const origin = new URL(invited.sign_in_url).origin;
  const dir = outputDir();

  // The review queue: both widths, then the approval by the row's own button.
  await page.goto(`${origin}/console/reviews`);
  await page.getByRole('cell', { name: 'disposable_email' }).first().waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-reviews-phone.png'), fullPage: true });
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-reviews.png'), fullPage: true });
  await page.getByRole('button', { name: `Approve ${name}` }).click();
  await page.getByText('Approved 1 referral.').waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  const referral = await api(merchant.api_secret).get(`/v1/referrals/${held.referralId}`);
  expect(referral.body.review_state).toBe('approved');
  const commissionId = held.commission!.id;
  await eventually(async () => {
    const c = await api(merchant.api_secret).get(`/v1/commissions/${commissionId}`);
    return c.body.held === false ? true : undefined;
  });

  // The commissions page: filtered to Grace by e-mail in the form, both widths, then the void.
  await page.goto(`${origin}/console/commissions`);
  await page.getByLabel('Affiliate (e-mail or id)').fill(held.affiliate.email);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('cell', { name: held.affiliate.email }).waitFor();
  expect(new URL(page.url()).searchParams.get('affiliate')).toBe(held.affiliate.email);
  expect(await pageProblems(page, PHONE)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-commissions-phone.png'), fullPage: true });
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.goto(`${origin}/console/commissions`);
  await page.screenshot({ path: path.join(dir, 'console-commissions.png'), fullPage: true });
  await page.getByRole('button', { name: `Void ${name} $25.00` }).click();
  await page.getByText('Voided 1 commission.').waitFor();
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  const voided = await api(merchant.api_secret).get(`/v1/commissions/${commissionId}`);
  expect(voided.body.state).toBe('voided');

  // A viewer (same browser, signed in by its own link) sees both pages and no action at all.
  const viewer = await invite(merchant.merchant_id, `viewer-${randomUUID()}@example.com`, 'viewer');
  await page.goto(viewer.sign_in_url);
  await page.goto(`${origin}/console/reviews`);
  await page.getByRole('cell', { name: /Alan/ }).waitFor();
  expect(await page.getByRole('button', { name: /Approve|Reject/ }).count()).toBe(0);
  expect(await pageProblems(page, PHONE)).toEqual([]);
  await page.goto(`${origin}/console/commissions`);
  await page.getByRole('cell', { name: /Alan/ }).waitFor();
  expect(await page.getByRole('button', { name: /Void/ }).count()).toBe(0);
  expect(await page.getByRole('checkbox').count()).toBe(0);
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(problems).toEqual([]);
}, 180_000);
