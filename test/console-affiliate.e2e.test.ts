/**
 * An affiliate's console page through the real gateway: links, fraud signals, referrals,
 * commissions and payouts from the REST API's lists after real traffic; the owners' actions
 * (mark suspicious, exempt from fraud checks, enable, a portal sign-in link) with the REST API's
 * effects and webhooks; a viewer refused; another tenant's affiliate not found.
 */
import { randomUUID } from 'node:crypto';
import { formatMoney } from '@aff/api';
import { merchantClient } from './support/client';
import { api, gatewayUrl } from './support/http';
import {
  charge,
  createAffiliate,
  dueCommissionOf,
  generatedPayout,
  referredCustomer,
} from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { csrfOf } from './support/portal';
import { consoleRequest, followLink, invite } from './support/console';
import { eventually } from './support/processor';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

let merchant: TestMerchant;
let receiver: WebhookReceiver;
let affiliate: Awaited<ReturnType<typeof createAffiliate>>;
let owner: { cookie: string; csrf: string };
let flaggedEmail: string;
let payout: any;
const origin = () => new URL(gatewayUrl()).origin;
const page = (id = affiliate.id) => `/console/affiliates/${id}`;

async function signedIn(m: TestMerchant, role: 'owner' | 'viewer') {
  const invited = await invite(m.merchant_id, `af-${randomUUID()}@example.com`, role);
  const { cookie } = await followLink(invited.sign_in_url);
  const first = await consoleRequest('/console/affiliates', { cookie });
  return { cookie, csrf: csrfOf(first.text) };
}
const post = (id: string, action: string, who: { cookie: string; csrf: string }) =>
  consoleRequest(`${page(id)}/${action}`, {
    cookie: who.cookie,
    form: { _csrf: who.csrf, from: 'detail' },
    origin: origin(),
  });
const rest = async () =>
  (await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  ({ receiver } = await subscribedReceiver(merchant, ['affiliate.updated']));
  const campaign = await merchantClient(merchant.api_secret).campaigns.create({
    name: `Due at once ${randomUUID()}`,
    days_until_commissions_are_due: 0,
  } as never);
  affiliate = await createAffiliate(merchant, {
    first_name: `Detail${randomUUID().slice(0, 6)}`,
    campaign_id: campaign.id,
  });
  await dueCommissionOf(merchant, affiliate, 10_000);
  payout = await generatedPayout(merchant, affiliate.id);
  // A disposable-mail customer: a fraud signal (flagged by the default policy).
  flaggedEmail = `${randomUUID()}@mailinator.com`;
  const flagged = await referredCustomer(merchant, affiliate, flaggedEmail);
  await charge(merchant, flagged.customerId, { amount: 3_000 });
  await eventually(async () => {
    const list = await api(merchant.api_secret).get(
      `/v1/referrals?affiliate_id=${affiliate.id}&flagged=true`,
    );
    return list.body.data.length === 1 ? true : undefined;
  });
  owner = await signedIn(merchant, 'owner');
}, 120_000);
afterAll(async () => {
  await receiver?.stop();
});

it("shows the affiliate's links, signals, referrals, commissions and payouts", async () => {
  const answer = await consoleRequest(page(), { cookie: owner.cookie });
  expect(answer.status).toBe(200);
  const text = answer.text;
  expect(text).toContain(affiliate.email);
  expect(text).toContain(affiliate.links[0].token);
  expect(text).toMatch(/href="\/console\/affiliates" aria-current="page"/);
  const now = await rest();
  expect(/data-stat="visitors">\s*(\d+)/.exec(text)?.[1]).toBe(String(now.visitors));
  expect(now.visitors).toBe(2);
  const signals = text.slice(text.indexOf('aria-label="Flagged referrals"'));
  expect(signals).toContain('disposable_email');
  expect(text).toContain(flaggedEmail);
  expect(text).toContain(formatMoney(2_000, 'USD')); // 20 % of the first charge
  expect(text.slice(text.indexOf('aria-label="Payouts"'))).toContain(
    formatMoney(payout.amount, payout.currency),
  );
  for (const action of ['suspicious', 'disable', 'exempt', 'portal'])
    expect(text).toContain(`action="${page()}/${action}"`);
});

it("a viewer sees the page without actions, and a viewer's action is refused", async () => {
  const viewer = await signedIn(merchant, 'viewer');
  const answer = await consoleRequest(page(), { cookie: viewer.cookie });
  expect(answer.status).toBe(200);
  expect(answer.text).not.toContain(`action="${page()}/`);
  const list = await consoleRequest('/console/affiliates', { cookie: viewer.cookie });
  expect(list.text).toContain(affiliate.email);
  expect(list.text).not.toContain(`action="${page()}/`);
  for (const action of ['suspicious', 'exempt', 'portal']) {
    const refused = await post(affiliate.id, action, viewer);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Not allowed');
  }
  expect(await rest()).toMatchObject({ state: 'active', fraud_exempt: false });
});

it('an owner marks suspicious, exempts and enables as the REST API would (state and webhooks)', async () => {
  const forged = await consoleRequest(`${page()}/suspicious`, {
    cookie: owner.cookie,
    form: { _csrf: owner.csrf, from: 'detail' },
    origin: 'https://evil.example',
  });
  expect(forged.status).toBe(403);
  expect((await rest()).state).toBe('active');

  const marked = await post(affiliate.id, 'suspicious', owner);
  expect(marked.status).toBe(303);
  expect(marked.location).toBe(`${page()}?done=suspicious`);
  expect((await rest()).state).toBe('suspicious');
  const after = await consoleRequest(marked.location!, { cookie: owner.cookie });
  expect(after.text).toContain('Affiliate marked suspicious.');
  expect(after.text).toMatch(/data-field="state">\s*<span class="state">suspicious/);
  await receiver.waitFor(
    (r) => ofType('affiliate.updated')(r) && (r.json as any)?.object?.state === 'suspicious',
  );

  expect((await post(affiliate.id, 'exempt', owner)).status).toBe(303);
  expect((await rest()).fraud_exempt).toBe(true);
  await receiver.waitFor(
    (r) => ofType('affiliate.updated')(r) && (r.json as any)?.object?.fraud_exempt === true,
  );
  const exempt = await consoleRequest(page(), { cookie: owner.cookie });
  expect(exempt.text).toContain(`action="${page()}/unexempt"`);

  expect((await post(affiliate.id, 'unexempt', owner)).status).toBe(303);
  expect((await post(affiliate.id, 'enable', owner)).status).toBe(303);
  expect(await rest()).toMatchObject({ state: 'active', fraud_exempt: false });
});

it("sends the owner straight to a one-time sign-in link of the affiliate's portal", async () => {
  const answer = await post(affiliate.id, 'portal', owner);
  expect(answer.status).toBe(303);
  const url = new URL(answer.location!);
  expect(url.origin).toBe(origin());
  expect(url.pathname.startsWith('/portal/')).toBe(true);
  // The link signs in to the affiliate's dashboard, once.
  const portal = await consoleRequest(`${url.pathname}${url.search}`);
  expect(portal.status).toBe(303);
  expect(portal.setCookie.join(';')).toContain('Path=/portal');
  expect((await consoleRequest(`${url.pathname}${url.search}`)).status).not.toBe(303);
});

it("bad ids and actions, and another tenant's affiliate, are not found (nothing shown)", async () => {
  expect((await consoleRequest(page('nope'), { cookie: owner.cookie })).status).toBe(404);
  expect((await consoleRequest(page(randomUUID()), { cookie: owner.cookie })).status).toBe(404);
  const weird = await consoleRequest(`${page()}?done=%3Cscript%3E&page=-4`, {
    cookie: owner.cookie,
  });
  expect(weird.status).toBe(200);
  expect(weird.text).not.toContain('role="status"');
  for (const done of ['hasOwnProperty', 'constructor', 'toString']) {
    const odd = await consoleRequest(`${page()}?done=${done}`, { cookie: owner.cookie });
    expect(odd.status).toBe(200);
    expect(odd.text).not.toContain('role="status"');
  }
  expect((await post(affiliate.id, 'delete', owner)).status).toBe(404);

  const other = await createMerchant({ rateLimit: 100_000 });
  const stranger = await signedIn(other, 'owner');
  const foreign = await consoleRequest(page(), { cookie: stranger.cookie });
  expect(foreign.status).toBe(404);
  expect(foreign.text).not.toContain(affiliate.email);
  const action = await post(affiliate.id, 'suspicious', stranger);
  expect(action.status).toBe(404);
  expect((await post(affiliate.id, 'portal', stranger)).status).toBe(404);
  expect((await rest()).state).toBe('active');
});
