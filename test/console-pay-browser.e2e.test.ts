/**
 * The payouts, exports and webhooks pages in real headless Chromium: an owner creates a USD
 * PayPal export from the payouts page, downloads its file (the REST API's bytes), completes it
 * (the REST API shows the payout paid), and redelivers a webhook from the delivery log (the
 * receiver gets the same webhook-id again). Every page passes at phone and desktop widths
 * (lang, axe-core, no sideways scroll) and nothing reaches the browser console. Desktop
 * screenshots go to .local/test-output/ (copied to docs/console-payouts.png and
 * docs/console-webhooks.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { outputDir } from './support/browser';
import { invite } from './support/console';
import { download, payableAffiliate } from './support/console-money';
import {
  DESKTOP,
  PHONE,
  pageProblems,
  signedInBrowser,
  type ConsoleBrowser,
} from './support/console-browser';
import { createAffiliate } from './support/journey';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

let open: ConsoleBrowser | undefined;
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  await open?.browser.close();
  await receiver?.stop();
});

it('an owner exports, downloads and completes USD payouts and redelivers a webhook in the browser', async () => {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const rest = api(merchant.api_secret);
  receiver = await startReceiver();
  const endpoint = await rest.post('/v1/webhook_endpoints', {
    url: `${receiver.url}?m=${merchant.merchant_id}`,
    events: ['affiliate.created'],
  });
  expect(endpoint.status).toBe(200);
  const { payout } = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 2469, 'USD');
  await payableAffiliate(merchant.api_secret, merchant.merchant_id, 1500, 'EUR');
  const hooked = await createAffiliate(merchant, { first_name: 'Webhook', last_name: 'Subject' });
  const [first] = await receiver.waitFor((r) => r.json?.object?.id === hooked.id);

  const invited = await invite(merchant.merchant_id, `owner-${randomUUID()}@example.com`, 'owner');
  open = await signedInBrowser(invited.sign_in_url);
  const { page, problems } = open;
  const origin = new URL(invited.sign_in_url).origin;
  const dir = outputDir();

  // The payouts page: both widths, then a PayPal export of the USD payouts.
  await page.goto(`${origin}/console/payouts`);
  await page.getByRole('rowheader', { name: 'USD' }).waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-payouts.png'), fullPage: true });
  await page.getByLabel('Currency to export').selectOption('USD');
  await page.getByLabel('File format').selectOption('paypal_payouts');
  await page.getByRole('button', { name: 'Create export' }).click();
  await page.getByText('Export created.').waitFor();
  const exportId = /\/console\/payouts\/exports\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);

  // The browser downloads the file: the REST API's bytes.
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
  expect((await rest.get(`/v1/payout_exports/${exportId}`)).body.state).toBe('completed');
  await eventually(async () => {
    const res = await rest.get(`/v1/payouts/${payout.id}`);
    return res.body.state === 'paid' ? true : undefined;
  });
  await page.goto(`${origin}/console/payouts/exports`);
  await page.getByRole('cell', { name: 'completed' }).waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);

  // Webhooks: the endpoint list, its delivery log, then a redelivery from the log.
  await page.goto(`${origin}/console/webhooks`);
  await page.getByText('Healthy').waitFor();
  expect(await pageProblems(page, PHONE)).toEqual([]);
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.getByRole('link', { name: /delivery log/ }).click();
  await page
    .getByRole('cell', { name: /affiliate\.created/ })
    .first()
    .waitFor();
  expect(await pageProblems(page, DESKTOP)).toEqual([]);
  await page.screenshot({ path: path.join(dir, 'console-webhooks.png'), fullPage: true });
  expect(await pageProblems(page, PHONE)).toEqual([]);
  const deliveryId = first!.headers['webhook-id']!;
  await page.locator(`form[action$="/deliveries/${deliveryId}/redeliver"] button`).click();
  await page.getByText('Delivery queued again').waitFor();
  const again = await receiver.waitFor((r) => r.headers['webhook-id'] === deliveryId, 2);
  expect(again[1]!.json.object.id).toBe(hooked.id);
  expect(problems).toEqual([]);
}, 180_000);
