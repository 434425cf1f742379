/**
 * An owner's day in the console, in one real headless Chromium session through the gateway:
 * sign in by the mailed link, find an affiliate by name, approve a held referral, void a
 * commission, export USD payouts as PayPal, download the file and complete the export,
 * redeliver a webhook, sign out. Each effect is read back from the REST API (and the webhook
 * receiver); every page visited has `lang` and no serious/critical axe finding at phone and
 * desktop widths, and nothing reaches the browser console. Then a viewer signed in in the
 * browser posts actions with the page's own CSRF token: the 403 page, nothing changed.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import {
  consoleRequest,
  heldReferral,
  holdingCampaign,
  invite,
  linksMailedTo,
} from './support/console';
import { download, payableAffiliate } from './support/console-money';
import {
  DESKTOP,
  PHONE,
  pageProblems,
  signedInBrowser,
  type ConsoleBrowser,
} from './support/console-browser';
import { createAffiliate, dueCommissionOf } from './support/journey';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

const opened: ConsoleBrowser[] = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  for (const open of opened) await open.browser.close();
  await receiver?.stop();
});

/** The bar of every page visited, at both widths, named by the page so a failure says where. */
async function passes(open: ConsoleBrowser, label: string) {
  const found = [
    ...(await pageProblems(open.page, PHONE)),
    ...(await pageProblems(open.page, DESKTOP)),
  ];
  expect({ page: label, found, console: open.problems }).toEqual({
    page: label,
    found: [],
    console: [],
  });
}

it("walks an owner's day from sign-in to sign-out, each effect seen by the REST API", async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const rest = api(merchant.api_secret);
  receiver = await startReceiver();
  const hooks = receiver;
  const endpoint = await rest.post('/v1/webhook_endpoints', {
    url: `${receiver.url}?m=${merchant.merchant_id}`,
    events: [
      'affiliate.created',
      'referral.reviewed',
      'commission.voided',
      'payout_export.completed',
    ],
  });
  expect(endpoint.status).toBe(200);

  // The day's material: a held referral (disposable e-mail, held by the campaign's policy), an
  // affiliate with a due commission (the one to find and void), a USD payout ready to export.
  const campaignId = await holdingCampaign(merchant);
  const held = await heldReferral(merchant, campaignId, { first_name: 'Grace', amount: 12_500 });
  const heldName = `Grace ${held.affiliate.last_name}`;
  const surname = `Lovelace${randomUUID().slice(0, 6)}`;
  const ada = await createAffiliate(merchant, {
    campaign_id: campaignId,
    first_name: 'Ada',
    last_name: surname,
  });
  const { commission: toVoid } = await dueCommissionOf(merchant, ada, 10_000);
  const { payout } = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 2469, 'USD');
  const [adaCreated] = await receiver.waitFor(
    (r) => ofType('affiliate.created')(r) && r.json.object.id === ada.id,
  );

  // Sign in by the link the invitation mailed.
  const email = `owner-${randomUUID()}@example.com`;
  const invited = await invite(merchant.merchant_id, email, 'owner');
  const [mailed] = await linksMailedTo(email);
  const origin = new URL(invited.sign_in_url).origin;
  const open = await signedInBrowser(mailed!);
  opened.push(open);
  const { page } = open;
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await passes(open, 'overview');

  // Find Ada by part of her surname, any case, and open her page.
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Affiliates' })
    .click();
  await page.waitForURL('**/console/affiliates');
  await page.getByLabel('Name, e-mail or link token').fill(surname.toLowerCase());
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('cell', { name: ada.email }).waitFor();
  expect(await page.getByRole('cell', { name: held.affiliate.email }).count()).toBe(0);
  await passes(open, 'affiliates search');
  await page.getByRole('link', { name: `Ada ${surname}` }).click();
  await page.waitForURL(`**/console/affiliates/${ada.id}`);
  await page.getByText(ada.email).first().waitFor();
  await passes(open, 'affiliate page');

  // The review queue: approve Grace's held referral with its row button.
  await page.goto(`${origin}/console/reviews`);
  await page.getByRole('cell', { name: 'disposable_email' }).first().waitFor();
  await passes(open, 'review queue');
  await page.getByRole('button', { name: `Approve ${heldName}` }).click();
  await page.getByText('Approved 1 referral.').waitFor();
  await passes(open, 'review queue after approve');
  const referral = await rest.get(`/v1/referrals/${held.referralId}`);
  expect(referral.body.review_state).toBe('approved');
  await eventually(async () => {
    const c = await rest.get(`/v1/commissions/${held.commission!.id}`);
    return c.body.held === false ? true : undefined;
  });
  await hooks.waitFor(
    (r) => ofType('referral.reviewed')(r) && r.json.object.id === held.referralId,
  );

  // Commissions: void Ada's due commission.
  await page.goto(`${origin}/console/commissions`);
  await page.getByRole('cell', { name: ada.email }).waitFor();
  await passes(open, 'commissions');
  await page.getByRole('button', { name: new RegExp(`^Void Ada ${surname}`) }).click();
  await page.getByText('Voided 1 commission.').waitFor();
  await passes(open, 'commissions after void');
  expect((await rest.get(`/v1/commissions/${toVoid.id}`)).body.state).toBe('voided');
  expect((await rest.get(`/v1/commissions/${held.commission!.id}`)).body.state).not.toBe('voided');
  await hooks.waitFor((r) => ofType('commission.voided')(r) && r.json.object.id === toVoid.id);

  // Payouts: a PayPal export of the USD payouts, its file downloaded, then completed.
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Payouts' })
    .click();
  await page.getByRole('rowheader', { name: 'USD' }).waitFor();
  await passes(open, 'payouts');
  await page.getByLabel('Currency to export').selectOption('USD');
  await page.getByLabel('File format').selectOption('paypal_payouts');
  await page.getByRole('button', { name: 'Create export' }).click();
  await page.getByText('Export created.').waitFor();
  const exportId = /\/console\/payouts\/exports\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  await passes(open, 'export');
  expect((await rest.get(`/v1/payout_exports/${exportId}`)).body.state).toBe('open');
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download file 1' }).first().click(),
  ]);
  expect(file.suggestedFilename()).toBe(`payouts-paypal_payouts-USD-${exportId}-1.csv`);
  const saved = fs.readFileSync((await file.path())!, 'utf8');
  const served = await download(`/v1/payout_exports/${exportId}/files/1`, {
    secret: merchant.api_secret,
  });
  expect(saved).toBe(served.text);
  expect(saved).toContain(',24.69,USD,');
  await page.getByRole('button', { name: 'Complete export (mark payouts paid)' }).click();
  await page.getByText('Export completed').waitFor();
  await passes(open, 'export completed');
  expect((await rest.get(`/v1/payout_exports/${exportId}`)).body.state).toBe('completed');
  await eventually(async () => {
    const res = await rest.get(`/v1/payouts/${payout.id}`);
    return res.body.state === 'paid' && res.body.paid_by_id === invited.user_id ? true : undefined;
  });
  await hooks.waitFor((r) => ofType('payout_export.completed')(r) && r.json.object.id === exportId);

  // Webhooks: the endpoint's delivery log, then Ada's affiliate.created delivered again.
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Webhooks' })
    .click();
  await page.getByText('Healthy').waitFor();
  await passes(open, 'webhooks');
  await page.getByRole('link', { name: /delivery log/ }).click();
  await page
    .getByRole('cell', { name: /payout_export\.completed/ })
    .first()
    .waitFor();
  await passes(open, 'delivery log');
  const deliveryId = adaCreated!.headers['webhook-id']!;
  await page.locator(`form[action$="/deliveries/${deliveryId}/redeliver"] button`).click();
  await page.getByText('Delivery queued again').waitFor();
  await passes(open, 'delivery log after redeliver');
  const again = await hooks.waitFor((r) => r.headers['webhook-id'] === deliveryId, 2);
  expect(again[1]!.json.object.id).toBe(ada.id);

  // Sign out: the page says so, and the session is over on the server, not only in the browser.
  const [cookie] = (await open.browser.context.cookies()).filter((c) => c.name === 'aff_console');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are signed out.').waitFor();
  await passes(open, 'signed out');
  const stale = await consoleRequest('/console/affiliates', {
    cookie: `${cookie!.name}=${cookie!.value}`,
  });
  expect(stale.status).toBe(303);
  expect(stale.location).toContain('/console/sign-in');
}, 240_000);

it("refuses a viewer's actions posted from the browser with the page's token; nothing changes", async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const rest = api(merchant.api_secret);
  const campaignId = await holdingCampaign(merchant);
  const held = await heldReferral(merchant, campaignId, { first_name: 'Grace', amount: 12_500 });
  const commissionId = held.commission!.id;
  const before = (await rest.get(`/v1/commissions/${commissionId}`)).body;
  const invited = await invite(
    merchant.merchant_id,
    `viewer-${randomUUID()}@example.com`,
    'viewer',
  );
  const open = await signedInBrowser(invited.sign_in_url);
  opened.push(open);
  const { page } = open;
  const origin = new URL(invited.sign_in_url).origin;

  // A real form the browser submits (Origin and cookie as the browser sends them), carrying the
  // CSRF token of the viewer's own page: only the role can refuse it.
  const post = async (path: string) => {
    await page.goto(`${origin}/console/reviews`);
    await page.getByRole('cell', { name: 'disposable_email' }).first().waitFor();
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${origin}${path}` && r.request().method() === 'POST',
      ),
      // A string, not a function: the tests compile without the DOM's types.
      page.evaluate(`(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = ${JSON.stringify(path)};
        const token = document.createElement('input');
        token.type = 'hidden';
        token.name = '_csrf';
        token.value = document.querySelector('input[name="_csrf"]').value;
        form.append(token);
        document.body.append(form);
        form.submit();
      })()`),
    ]);
    await page.getByRole('heading', { name: 'Not allowed' }).first().waitFor();
    // Chromium reports any 4xx document as a failed load: that line, for this post, and no other.
    expect(open.problems).toEqual([
      `Failed to load resource: the server responded with a status of 403 (Forbidden) (${origin}${path})`,
    ]);
    open.problems.length = 0;
    return answer.status();
  };

  expect(await post(`/console/reviews/${held.referralId}/approve`)).toBe(403);
  await passes(open, 'viewer refused approve');
  expect(await post(`/console/commissions/${commissionId}/void`)).toBe(403);
  await passes(open, 'viewer refused void');

  const referral = (await rest.get(`/v1/referrals/${held.referralId}`)).body;
  expect(referral.review_state).toBe('open');
  const after = (await rest.get(`/v1/commissions/${commissionId}`)).body;
  expect({ state: after.state, held: after.held }).toEqual({ state: before.state, held: true });
}, 180_000);
