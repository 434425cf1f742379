/**
 * The console's commissions page through the real gateway: filters by state, affiliate and
 * creation dates kept in the URL (bad ones ignored, never a 500); an owner's void, one or many,
 * has the REST API's effects (state, commission.voided webhook) and a commission that cannot be
 * voided (paid) is reported by name while the others are voided; viewers, forged posts and other
 * tenants change nothing.
 */
import { randomUUID } from 'node:crypto';
import { merchantClient } from './support/client';
import { api, gatewayUrl } from './support/http';
import { charge, createAffiliate, referredCustomer, waitForCommissions } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, consoleSession } from './support/console';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

let merchant: TestMerchant;
let campaignId: string;
let receiver: WebhookReceiver;
let owner: { cookie: string; csrf: string };
const origin = () => new URL(gatewayUrl()).origin;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  ({ receiver } = await subscribedReceiver(merchant, ['commission.voided']));
  campaignId = (await campaignOf(merchant)).id;
  owner = await consoleSession(merchant.merchant_id, 'owner');
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
});

const campaignOf = (m: TestMerchant) =>
  merchantClient(m.api_secret).campaigns.create({
    name: `Console ${randomUUID()}`,
    days_until_commissions_are_due: 30,
  } as never);

/** A new affiliate (first name `name`) with `count` commissions of 10 % of 100.00. */
async function earner(name: string, count = 1, m = merchant, campaign = campaignId) {
  const affiliate = await createAffiliate(m, {
    campaign_id: campaign,
    first_name: name,
    last_name: `Earn${randomUUID().slice(0, 6)}`,
  });
  const customer = await referredCustomer(m, affiliate);
  for (let i = 0; i < count; i++) await charge(m, customer.customerId, { amount: 10_000 });
  const commissions = await waitForCommissions(m, affiliate.id, (list) => list.length === count);
  return { affiliate, commissions };
}

const commission = async (id: string, secret = merchant.api_secret) =>
  (await api(secret).get(`/v1/commissions/${id}`)).body;
const post = (form: [string, string][], session = owner, path = '/console/commissions') =>
  consoleRequest(path, {
    cookie: session.cookie,
    form: [['_csrf', session.csrf], ...form],
    origin: origin(),
  });
const shown = (text: string) =>
  [...text.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!).sort();
const page = async (query: string) => {
  const res = await consoleRequest(`/console/commissions?${query}`, { cookie: owner.cookie });
  expect(res.status).toBe(200);
  return res.text;
};

it('filters by state, affiliate (e-mail or id) and creation dates, ignoring bad filters', async () => {
  const { affiliate, commissions } = await earner('Filter', 3);
  const [paid, voided, open] = commissions.map((c) => c.id);
  expect(
    (
      await api(merchant.api_secret).put(`/v1/commissions/${paid}`, {
        paid_at: new Date().toISOString(),
      })
    ).status,
  ).toBe(200);
  expect((await api(merchant.api_secret).delete(`/v1/commissions/${voided}`)).status).toBe(200);
  const all = [paid!, voided!, open!].sort();
  const mine = `affiliate=${encodeURIComponent(affiliate.email)}`;
  expect(shown(await page(mine))).toEqual(all);
  expect(shown(await page(`affiliate=${affiliate.id}`))).toEqual(all);
  expect(shown(await page(`${mine}&state=paid`))).toEqual([paid]);
  const pending = await page(`${mine}&state=pending`);
  expect(shown(pending)).toEqual([open]);
  expect(pending).toMatch(/<option value="pending" selected>/);
  // The days they were made (two only if the test ran across midnight UTC).
  const days = commissions.map((c) => c.created_at.slice(0, 10)).sort();
  const [first, last] = [days[0]!, days[days.length - 1]!];
  const shift = (day: string, by: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + by * 86_400_000).toISOString().slice(0, 10);
  const [next, before] = [shift(last, 1), shift(first, -1)];
  expect(shown(await page(`${mine}&from=${first}&to=${last}`))).toEqual(all);
  expect(shown(await page(`${mine}&from=${next}`))).toEqual([]);
  expect(shown(await page(`${mine}&to=${before}`))).toEqual([]);
  // Nonsense filters are dropped (as if absent); the good ones still apply.
  const bad = await page(`${mine}&state=bogus&from=2024-02-30&to=yesterday&page=-1`);
  expect(shown(bad)).toEqual(all);
  expect(bad).not.toContain('2024-02-30');
  expect(bad).toMatch(/<option value="" selected>|<option value="">/);
  const badAffiliate = await page('affiliate=%3Cb%3E&state[x]=1&from[]=2024-01-01');
  expect(badAffiliate).not.toContain('<b>');
  expect(badAffiliate).toContain('value=""');
  // An unknown e-mail matches nobody.
  expect(await page(`affiliate=nobody-${randomUUID()}%40example.com`)).toContain(
    'No commissions found.',
  );
}, 120_000);

it('an owner voids one commission as the API would: state and commission.voided webhook', async () => {
  const { commissions } = await earner('Voidone');
  const id = commissions[0]!.id;
  const done = await post([], owner, `/console/commissions/${id}/void`);
  expect(done.status).toBe(200);
  expect(done.text).toContain('Voided 1 commission.');
  expect(await commission(id)).toMatchObject({ state: 'voided' });
  const [hook] = await receiver.waitFor(
    (r) =>
      r.path.endsWith(`?m=${merchant.merchant_id}`) &&
      ofType('commission.voided')(r) &&
      r.json.object.id === id,
  );
  expect(hook!.json.object.state).toBe('voided');
}, 120_000);

it('a bulk void voids every ticked unpaid commission and names the paid one', async () => {
  const { affiliate, commissions } = await earner('Bulk', 3);
  const [first, paid, last] = commissions.map((c) => c.id);
  await api(merchant.api_secret).put(`/v1/commissions/${paid}`, {
    paid_at: new Date().toISOString(),
  });
  const done = await post([
    ['ids', first!],
    ['ids', paid!],
    ['ids', last!],
    ['action', 'void'],
  ]);
  expect(done.status).toBe(200);
  expect(done.text).toContain('Voided 2 commissions.');
  const failures = /<ul class="failures">([\s\S]*?)<\/ul>/.exec(done.text)![1]!;
  expect(failures).toContain(paid);
  expect(failures).toContain(`Bulk ${affiliate.last_name}`);
  expect(failures).not.toContain(first);
  expect(await commission(first!)).toMatchObject({ state: 'voided' });
  expect(await commission(last!)).toMatchObject({ state: 'voided' });
  expect(await commission(paid!)).toMatchObject({ state: 'paid', voided_at: null });
}, 120_000);

it("refuses a viewer's void and a forged or token-less post, changing nothing", async () => {
  const { commissions } = await earner('Guarded');
  const id = commissions[0]!.id;
  const viewer = await consoleSession(merchant.merchant_id, 'viewer');
  const seen = await consoleRequest('/console/commissions', { cookie: viewer.cookie });
  expect(shown(seen.text)).toContain(id);
  expect(seen.text).not.toContain(`formaction="/console/commissions/${id}/void"`);
  expect(seen.text).toContain('Your role (viewer) can see everything here but not change it.');
  const owners = await consoleRequest('/console/commissions', { cookie: owner.cookie });
  expect(owners.text).toContain(`formaction="/console/commissions/${id}/void"`);
  const byViewer = await post([], viewer, `/console/commissions/${id}/void`);
  expect(byViewer.status).toBe(403);
  expect(byViewer.text).toContain('Not allowed');
  const forged = await consoleRequest(`/console/commissions/${id}/void`, {
    cookie: owner.cookie,
    form: { _csrf: owner.csrf },
    origin: 'https://evil.example',
  });
  expect(forged.status).toBe(403);
  const noToken = await consoleRequest('/console/commissions', {
    cookie: owner.cookie,
    form: [
      ['action', 'void'],
      ['ids', id],
    ],
  });
  expect(noToken.status).toBe(403);
  expect(await commission(id)).toMatchObject({ state: 'pending', voided_at: null });
}, 120_000);

it("never shows or voids another merchant's commissions", async () => {
  const other = await createMerchant({ rateLimit: 100_000 });
  const theirs = await earner('Foreign', 1, other, (await campaignOf(other)).id);
  const id = theirs.commissions[0]!.id;
  expect(shown(await page(`affiliate=${theirs.affiliate.id}`))).toEqual([]);
  expect(await page(`affiliate=${encodeURIComponent(theirs.affiliate.email)}`)).not.toContain(id);
  expect(await page('')).not.toContain(theirs.affiliate.email);
  const refused = await post([], owner, `/console/commissions/${id}/void`);
  expect(refused.status).toBe(422);
  expect(refused.text).toContain('not found');
  expect(await commission(id, other.api_secret)).toMatchObject({ state: 'pending' });
}, 120_000);

it('answers bad posts with a 4xx page, never a 500', async () => {
  expect((await post([['action', 'approve']])).status).toBe(400);
  expect((await post([['action', 'void']])).status).toBe(400);
  const malformed = await post([
    ['action', 'void'],
    ['ids', '"><x>'],
  ]);
  expect(malformed.status).toBe(422);
  expect(malformed.text).toContain('Not an id.');
  expect(malformed.text).not.toContain('"><x>');
});
