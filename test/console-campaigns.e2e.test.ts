/**
 * The console's campaigns page through the real gateway: the list, a new campaign and an edit
 * with its fraud policy through the REST API's operations (the API and the webhooks see them), a
 * refused form (422) that changes nothing, a viewer refused, another tenant's campaign not found.
 */
import { randomUUID } from 'node:crypto';
import { api, gatewayUrl } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { csrfOf } from './support/portal';
import { consoleRequest, followLink, invite } from './support/console';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

let merchant: TestMerchant;
let receiver: WebhookReceiver;
let owner: { cookie: string; csrf: string };
const origin = () => new URL(gatewayUrl()).origin;

async function signedIn(m: TestMerchant, role: 'owner' | 'viewer') {
  const invited = await invite(m.merchant_id, `cp-${randomUUID()}@example.com`, role);
  const { cookie } = await followLink(invited.sign_in_url);
  const first = await consoleRequest('/console/affiliates', { cookie });
  return { cookie, csrf: csrfOf(first.text) };
}
const send = (path: string, who: { cookie: string; csrf: string }, form: Record<string, string>) =>
  consoleRequest(path, {
    cookie: who.cookie,
    form: { _csrf: who.csrf, ...form },
    origin: origin(),
  });
const campaigns = async (m = merchant) =>
  (await api(m.api_secret).get('/v1/campaigns?limit=100')).body.data as any[];

const FORM = {
  reward_type: 'percent',
  commission_percent: '15',
  days_until_commissions_are_due: '0',
  fraud_self_referral_email: 'block',
  fraud_self_referral_ip: 'hold',
  fraud_disposable_email: 'flag',
  fraud_paid_ads: 'hold',
  fraud_ip_velocity: 'hold',
};

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  ({ receiver } = await subscribedReceiver(merchant, ['campaign.created', 'campaign.updated']));
  owner = await signedIn(merchant, 'owner');
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
});

it('lists the campaigns (the default one marked) with a form for a new one', async () => {
  const page = await consoleRequest('/console/campaigns?page=abc&sort=%22', {
    cookie: owner.cookie,
  });
  expect(page.status).toBe(200);
  const [first] = await campaigns();
  expect(page.text).toContain(`href="/console/campaigns/${first.id}"`);
  expect(page.text).toContain('<span class="state">default</span>');
  expect(page.text).toMatch(/href="\/console\/campaigns" aria-current="page"/);
  expect(page.text).toContain('action="/console/campaigns"');
});

it('creates a campaign with its fraud policy, as the REST API would (and its webhook)', async () => {
  const name = `Spring ${randomUUID().slice(0, 8)}`;
  const created = await send('/console/campaigns', owner, { ...FORM, name });
  expect(created.status).toBe(303);
  const id = /^\/console\/campaigns\/([0-9a-f-]{36})\?done=created$/.exec(created.location!)?.[1];
  expect(id).toBeDefined();
  const rest = await api(merchant.api_secret).get(`/v1/campaigns/${id}`);
  expect(rest.body).toMatchObject({
    name,
    reward_type: 'percent',
    commission_percent: 15,
    days_until_commissions_are_due: 0,
    fraud_policy: { paid_ads: 'hold', disposable_email: 'flag', self_referral_email: 'block' },
  });
  await receiver.waitFor(
    (r) => ofType('campaign.created')(r) && (r.json as any)?.object?.id === id,
  );
  const shown = await consoleRequest(created.location!, { cookie: owner.cookie });
  expect(shown.text).toContain('Campaign created.');
  expect(shown.text).toMatch(/<option value="hold"\s+selected/);
});

it('edits a campaign and its fraud policy (REST and campaign.updated see it)', async () => {
  const before = await send('/console/campaigns', owner, { ...FORM, name: `Edit ${randomUUID()}` });
  const path = before.location!.split('?')[0]!;
  const id = path.split('/').pop()!;
  const renamed = `Renamed ${randomUUID().slice(0, 8)}`;
  const saved = await send(path, owner, {
    ...FORM,
    name: renamed,
    commission_percent: '22.5',
    fraud_ip_velocity: 'block',
    ip_velocity_limit: '5',
  });
  expect(saved.status).toBe(303);
  expect(saved.location).toBe(`${path}?done=updated`);
  const rest = await api(merchant.api_secret).get(`/v1/campaigns/${id}`);
  expect(rest.body).toMatchObject({
    name: renamed,
    commission_percent: 22.5,
    ip_velocity_limit: 5,
    fraud_policy: { ip_velocity: 'block', paid_ads: 'hold' },
  });
  await receiver.waitFor(
    (r) => ofType('campaign.updated')(r) && (r.json as any)?.object?.name === renamed,
  );
});

it('a refused form shows the reasons and what was typed, and changes nothing', async () => {
  const count = (await campaigns()).length;
  const name = `Bad ${randomUUID()}`;
  const refused = await send('/console/campaigns', owner, {
    ...FORM,
    name,
    commission_percent: '150',
  });
  expect(refused.status).toBe(422);
  expect(refused.text).toContain('Commission percent must be less than or equal to 100');
  expect(refused.text).toContain(`value="${name}"`);
  expect((await campaigns()).length).toBe(count);
  // An unknown action value is the service's 422 too, not a 500.
  const odd = await send('/console/campaigns', owner, { ...FORM, name, fraud_paid_ads: 'explode' });
  expect(odd.status).toBe(422);
  expect((await campaigns()).length).toBe(count);
});

it('a viewer sees campaigns but cannot create or edit them', async () => {
  const viewer = await signedIn(merchant, 'viewer');
  const list = await consoleRequest('/console/campaigns', { cookie: viewer.cookie });
  expect(list.status).toBe(200);
  expect(list.text).not.toContain('action="/console/campaigns"');
  const [first] = await campaigns();
  const one = await consoleRequest(`/console/campaigns/${first.id}`, { cookie: viewer.cookie });
  expect(one.status).toBe(200);
  expect(one.text).not.toContain('<form class="edit"');
  const count = (await campaigns()).length;
  expect((await send('/console/campaigns', viewer, { ...FORM, name: 'Nope' })).status).toBe(403);
  const edit = await send(`/console/campaigns/${first.id}`, viewer, { ...FORM, name: 'Nope' });
  expect(edit.status).toBe(403);
  expect((await campaigns()).length).toBe(count);
  expect((await api(merchant.api_secret).get(`/v1/campaigns/${first.id}`)).body.name).toBe(
    first.name,
  );
});

it("another tenant's campaign and bad ids are not found, and nothing changes", async () => {
  const [mine] = await campaigns();
  const other = await createMerchant({ rateLimit: 100_000 });
  const stranger = await signedIn(other, 'owner');
  const seen = await consoleRequest(`/console/campaigns/${mine.id}`, { cookie: stranger.cookie });
  expect(seen.status).toBe(404);
  expect(seen.text).not.toContain(mine.name);
  const list = await consoleRequest('/console/campaigns', { cookie: stranger.cookie });
  expect(list.text).not.toContain(mine.id);
  const edit = await send(`/console/campaigns/${mine.id}`, stranger, { ...FORM, name: 'Taken' });
  expect(edit.status).toBe(404);
  expect((await api(merchant.api_secret).get(`/v1/campaigns/${mine.id}`)).body.name).toBe(
    mine.name,
  );
  expect((await consoleRequest('/console/campaigns/nope', { cookie: owner.cookie })).status).toBe(
    404,
  );
  for (const done of ['hasOwnProperty', 'constructor']) {
    const odd = await consoleRequest(`/console/campaigns/${mine.id}?done=${done}`, {
      cookie: owner.cookie,
    });
    expect(odd.status).toBe(200);
    expect(odd.text).not.toContain('role="status"');
  }
});
