/**
 * The console's payouts and exports pages through the real gateway: unpaid amounts per
 * currency, generate and mark paid from the page; an export made in each format from the page,
 * its file downloaded with the REST API's bytes and headers, one completed (payouts paid by the
 * console user, webhooks fired) and one canceled (due again); viewers and forged posts change
 * nothing; another merchant's exports and files are 404; bad query values never 500.
 */
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest } from './support/console';
import { consoleUser, download, ownerAndViewer, payableAffiliate } from './support/console-money';
import { eventually } from './support/processor';
import {
  commissionView,
  publishCommissionEvents,
} from '../services/payout/test/support/payout-fixtures';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

type User = Awaited<ReturnType<typeof consoleUser>>;
let merchant: TestMerchant;
let owner: User;
let viewer: User;
let receiver: WebhookReceiver;
const rest = () => api(merchant.api_secret);

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  [owner, viewer] = await ownerAndViewer(merchant.merchant_id);
  ({ receiver } = await subscribedReceiver(merchant, [
    'payout_export.completed',
    'payout_export.canceled',
    'payout.paid',
  ]));
});
afterAll(async () => {
  await receiver?.stop();
});

const post = (path: string, user: User, form: Record<string, string> = {}, origin?: string) =>
  consoleRequest(path, { cookie: user.cookie, form: { _csrf: user.csrf, ...form }, origin });

async function createExport(format: string, currency: string) {
  const made = await post('/console/payouts/exports', owner, { format, currency });
  expect(made.status).toBe(303);
  const id = /\/console\/payouts\/exports\/([0-9a-f-]{36})\?done=created$/.exec(
    made.location!,
  )?.[1];
  expect(id).toBeDefined();
  return id!;
}

it('shows unpaid amounts per currency; generate and mark paid go through the REST operations', async () => {
  const { affiliate, payout } = await payableAffiliate(
    merchant.api_secret,
    merchant.merchant_id,
    4200,
    'CHF',
  );
  // A second due commission, bundled by the page's Generate into the same open payout.
  const commission = commissionView(affiliate, { id: randomUUID(), amount: 800, currency: 'CHF' });
  await publishCommissionEvents(merchant.merchant_id, [
    { type: 'commission.created', data: commission },
  ]);
  expect((await post('/console/payouts/generate', viewer)).status).toBe(403);
  expect((await rest().get(`/v1/payouts/${payout.id}`)).body.amount).toBe(4200);
  const generated = await post('/console/payouts/generate', owner);
  expect(generated.status).toBe(303);
  expect(generated.location).toBe('/console/payouts?done=generated&n=1');
  expect((await rest().get(`/v1/payouts/${payout.id}`)).body.amount).toBe(5000);

  const page = await consoleRequest('/console/payouts?state=due', { cookie: viewer.cookie });
  expect(page.status).toBe(200);
  expect(page.text).toMatch(/<th scope="row">CHF<\/th>\s*<td class="num">CHF\s50\.00/);
  expect(page.text).toContain(`${affiliate.first_name} ${affiliate.last_name}`);
  // A viewer's page has no action form (the server refuses its posts anyway, below).
  expect(page.text).not.toContain('method="post" action="/console/payouts');
  expect(page.text).toContain('Your role (viewer) can see everything here');
  const ownerPage = await consoleRequest('/console/payouts', { cookie: owner.cookie });
  expect(ownerPage.text).toContain('action="/console/payouts/generate"');
  expect(ownerPage.text).toContain(`action="/console/payouts/${payout.id}/pay"`);

  // Mark paid: a viewer is refused, the owner pays; paid_by_id is the console user.
  expect((await post(`/console/payouts/${payout.id}/pay`, viewer)).status).toBe(403);
  const paid = await post(`/console/payouts/${payout.id}/pay`, owner, { state: 'due' });
  expect(paid.status).toBe(303);
  expect(paid.location).toBe('/console/payouts?state=due');
  const done = await eventually(async () => {
    const res = await rest().get(`/v1/payouts/${payout.id}`);
    return res.body.state === 'paid' ? res.body : undefined;
  });
  expect(done.paid_by_id).toBe(owner.userId);
  const again = await post(`/console/payouts/${payout.id}/pay`, owner);
  expect(again.status).toBe(422);
  expect(again.text).toContain('Payout has already been paid');
});

it('creates an export in each format, downloads the REST bytes, completes one and cancels one', async () => {
  const usd = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 2469, 'USD');
  const eur = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 1000, 'EUR');
  const gbp = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 700, 'GBP');
  const paypal = await createExport('paypal_payouts', 'USD');
  const wise = await createExport('wise_batch', 'EUR');
  const csv = await createExport('csv', 'GBP');

  for (const [id, payout] of [
    [paypal, usd.payout],
    [wise, eur.payout],
    [csv, gbp.payout],
  ] as const) {
    const view = await rest().get(`/v1/payout_exports/${id}`);
    expect(view.body).toMatchObject({ state: 'open', payout_ids: [payout.id] });
    const detail = await consoleRequest(`/console/payouts/exports/${id}`, {
      cookie: viewer.cookie,
    });
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(`href="/console/payouts/exports/${id}/files/1"`);
    expect(detail.text).not.toContain(`action="/console/payouts/exports/${id}/complete"`);
    const mine = await download(`/console/payouts/exports/${id}/files/1`, {
      cookie: viewer.cookie,
    });
    const theirs = await download(`/v1/payout_exports/${id}/files/1`, {
      secret: merchant.api_secret,
    });
    expect(theirs.status).toBe(200);
    expect(mine).toEqual(theirs);
    expect(mine.type).toBe('text/csv; charset=utf-8');
    expect(mine.disposition).toMatch(
      /^attachment; filename=payouts-[a-z_]+-[A-Z]{3}-[0-9a-f-]{36}-1\.csv$/,
    );
  }
  // The payouts in the open exports are counted as processing in their currencies.
  const totals = await consoleRequest('/console/payouts', { cookie: owner.cookie });
  const cell = (figure: string) => `\\s*<td class="num">\\s*${figure}\\s*</td>`;
  expect(totals.text).toMatch(
    new RegExp(
      `<th scope="row">USD</th>${cell('—')}${cell('—')}${cell('\\$24\\.69 <span class="muted">\\(1\\)</span>')}`,
    ),
  );
  const missing = await download(`/console/payouts/exports/${paypal}/files/2`, {
    cookie: owner.cookie,
  });
  expect(missing.status).toBe(404);

  // Viewers and forged posts change nothing.
  expect((await post(`/console/payouts/exports/${paypal}/complete`, viewer)).status).toBe(403);
  expect(
    (await post('/console/payouts/exports', viewer, { format: 'csv', currency: 'USD' })).status,
  ).toBe(403);
  const forged = await post(
    `/console/payouts/exports/${paypal}/complete`,
    owner,
    {},
    'https://evil.example',
  );
  expect(forged.status).toBe(403);
  const noToken = await consoleRequest(`/console/payouts/exports/${paypal}/cancel`, {
    cookie: owner.cookie,
    form: {},
  });
  expect(noToken.status).toBe(403);
  expect((await rest().get(`/v1/payout_exports/${paypal}`)).body.state).toBe('open');
  expect((await rest().get('/v1/payout_exports')).body.pagination.total_count).toBe(3);

  const completed = await post(`/console/payouts/exports/${paypal}/complete`, owner);
  expect(completed.status).toBe(303);
  expect(completed.location).toBe(`/console/payouts/exports/${paypal}?done=completed`);
  const paid = await eventually(async () => {
    const res = await rest().get(`/v1/payouts/${usd.payout.id}`);
    return res.body.state === 'paid' ? res.body : undefined;
  });
  expect(paid.paid_by_id).toBe(owner.userId);
  const [completedHook] = await receiver.waitFor(ofType('payout_export.completed'));
  expect(completedHook!.json.object).toMatchObject({ id: paypal, state: 'completed' });
  await receiver.waitFor(
    (r) => r.json?.event?.type === 'payout.paid' && r.json.object.id === usd.payout.id,
  );
  const twice = await post(`/console/payouts/exports/${paypal}/complete`, owner);
  expect(twice.status).toBe(422);
  expect(twice.text).toContain('Payout export is not open');

  const canceled = await post(`/console/payouts/exports/${wise}/cancel`, owner);
  expect(canceled.status).toBe(303);
  expect((await rest().get(`/v1/payout_exports/${wise}`)).body.state).toBe('canceled');
  expect((await rest().get(`/v1/payouts/${eur.payout.id}`)).body.state).toBe('due');
  const [canceledHook] = await receiver.waitFor(ofType('payout_export.canceled'));
  expect(canceledHook!.json.object.id).toBe(wise);

  const list = await consoleRequest('/console/payouts/exports', { cookie: viewer.cookie });
  expect(list.status).toBe(200);
  for (const id of [paypal, wise, csv])
    expect(list.text).toContain(`/console/payouts/exports/${id}`);
  expect(list.text).toMatch(/completed[\s\S]*canceled|canceled[\s\S]*completed/);

  // Nothing due in USD any more: the operation's refusal is shown, not a 500.
  const none = await post('/console/payouts/exports', owner, {
    format: 'paypal_payouts',
    currency: 'USD',
  });
  expect(none.status).toBe(422);
  expect(none.text).toContain('No due payout in USD can be exported');
  const bad = await post('/console/payouts/exports', owner, { format: 'pdf', currency: 'usd' });
  expect(bad.status).toBe(422);
  expect(bad.text).toContain('Format must be one of');
});

it("never reaches another merchant's exports or files, and bad query values never 500", async () => {
  const { payout } = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 999, 'SEK');
  const id = await createExport('csv', 'SEK');
  const other = await createMerchant({ rateLimit: 100_000 });
  const stranger = await consoleUser(other.merchant_id, 'owner');
  expect(
    (await consoleRequest(`/console/payouts/exports/${id}`, { cookie: stranger.cookie })).status,
  ).toBe(404);
  const file = await download(`/console/payouts/exports/${id}/files/1`, {
    cookie: stranger.cookie,
  });
  expect(file.status).toBe(404);
  expect(file.text).not.toContain(payout.id.replace(/-/g, '').slice(0, 12));
  expect((await post(`/console/payouts/exports/${id}/complete`, stranger)).status).toBe(404);
  expect((await post(`/console/payouts/exports/${id}/cancel`, stranger)).status).toBe(404);
  expect((await post(`/console/payouts/${payout.id}/pay`, stranger)).status).toBe(404);
  expect((await rest().get(`/v1/payout_exports/${id}`)).body.state).toBe('open');
  expect((await rest().get(`/v1/payouts/${payout.id}`)).body.state).toBe('processing');
  const theirs = await consoleRequest('/console/payouts', { cookie: stranger.cookie });
  expect(theirs.text).not.toContain('SEK');

  for (const path of [
    '/console/payouts?state=bogus&page=-3&affiliate_id=%27%20or%201',
    '/console/payouts?page=99999999999&state[]=due',
    '/console/payouts/exports?page=abc&sort=zzz',
    '/console/payouts/exports?page=100000',
    '/console/payouts?done=hasOwnProperty&n=1',
    `/console/payouts/exports/${id}?done=constructor`,
  ]) {
    expect([path, (await consoleRequest(path, { cookie: owner.cookie })).status]).toEqual([
      path,
      200,
    ]);
  }
  for (const path of [
    '/console/payouts/exports/not-a-uuid',
    `/console/payouts/exports/${id}/files/abc`,
    `/console/payouts/exports/${id}/files/0`,
    `/console/payouts/exports/${id}/files/99999999999999999999`,
    `/console/payouts/exports/${randomUUID()}/files/1`,
  ]) {
    expect([path, (await consoleRequest(path, { cookie: owner.cookie })).status]).toEqual([
      path,
      404,
    ]);
  }
  const unknownAction = await post(`/console/payouts/exports/${id}/explode`, owner);
  expect(unknownAction.status).toBe(404);
  const badPay = await post('/console/payouts/not-a-uuid/pay', owner);
  expect(badPay.status).toBe(404);
});
