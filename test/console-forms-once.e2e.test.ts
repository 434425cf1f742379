/**
 * Console forms are single use, through the real gateway: each rendered form carries a key of
 * its own, and posting it again (a double click, the back button, a retried POST) replays the
 * first answer instead of acting twice, as the REST API's Idempotency-Key does. A key reused for
 * another request, or a key the console did not give out, changes nothing. A post with no key
 * at all acts once, unguarded, as a REST call without Idempotency-Key does.
 */
import { randomUUID } from 'node:crypto';
import { api, gatewayUrl } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, formKeysOf } from './support/console';
import { pageRequest } from './support/portal';
import { consoleUser, payableAffiliate } from './support/console-money';

type User = Awaited<ReturnType<typeof consoleUser>>;
let merchant: TestMerchant;
let owner: User;
const rest = () => api(merchant.api_secret);
const origin = () => new URL(gatewayUrl()).origin;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  owner = await consoleUser(merchant.merchant_id, 'owner');
}, 60_000);

const post = (path: string, form: Record<string, string>) =>
  consoleRequest(path, {
    cookie: owner.cookie,
    form: { _csrf: owner.csrf, ...form },
    origin: origin(),
  });

/** The key of the first action form on a console page, as the browser would post it. */
async function keyOfForm(path: string): Promise<string> {
  const page = await consoleRequest(path, { cookie: owner.cookie });
  expect(page.status).toBe(200);
  const [key] = formKeysOf(page.text);
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  return key!;
}

const campaignsNamed = async (name: string) =>
  ((await rest().get('/v1/campaigns?limit=100')).body.data as { name: string }[]).filter(
    (c) => c.name === name,
  );

const CAMPAIGN = { reward_type: 'percent', commission_percent: '10' };

it('gives every rendered form a key of its own', async () => {
  const first = formKeysOf(
    (await consoleRequest('/console/campaigns', { cookie: owner.cookie })).text,
  );
  const second = formKeysOf(
    (await consoleRequest('/console/campaigns', { cookie: owner.cookie })).text,
  );
  expect(first).toHaveLength(1);
  expect(second).toHaveLength(1);
  expect(second[0]).not.toBe(first[0]);
});

it('creates one campaign when its form is posted twice, and answers the repeat as the first', async () => {
  const _key = await keyOfForm('/console/campaigns');
  const name = `Once ${randomUUID().slice(0, 8)}`;
  const first = await post('/console/campaigns', { ...CAMPAIGN, name, _key });
  expect(first.status).toBe(303);
  expect(first.location).toMatch(/^\/console\/campaigns\/[0-9a-f-]{36}\?done=created$/);
  const again = await post('/console/campaigns', { ...CAMPAIGN, name, _key });
  expect(again.status).toBe(303);
  expect(again.location).toBe(first.location);
  expect(await campaignsNamed(name)).toHaveLength(1);

  // A fresh form (a new key) creates another, as it should.
  const fresh = await post('/console/campaigns', { ...CAMPAIGN, name, _key: randomUUID() });
  expect(fresh.status).toBe(303);
  expect(fresh.location).not.toBe(first.location);
  expect(await campaignsNamed(name)).toHaveLength(2);
});

it('creates one campaign when a double click posts the form twice at once', async () => {
  const _key = await keyOfForm('/console/campaigns');
  const name = `Twice ${randomUUID().slice(0, 8)}`;
  const answers = await Promise.all([
    post('/console/campaigns', { ...CAMPAIGN, name, _key }),
    post('/console/campaigns', { ...CAMPAIGN, name, _key }),
  ]);
  expect(answers.map((a) => a.status)).toEqual([303, 303]);
  expect(answers[1]!.location).toBe(answers[0]!.location);
  expect(await campaignsNamed(name)).toHaveLength(1);
});

it('refuses a key reused for another request, and a malformed key; nothing is done', async () => {
  const _key = await keyOfForm('/console/campaigns');
  const name = `First ${randomUUID().slice(0, 8)}`;
  expect((await post('/console/campaigns', { ...CAMPAIGN, name, _key })).status).toBe(303);
  const other = `Other ${randomUUID().slice(0, 8)}`;
  const reused = await post('/console/campaigns', { ...CAMPAIGN, name: other, _key });
  expect(reused.status).toBe(409);
  expect(reused.text).toContain('This form was already sent');
  expect(await campaignsNamed(other)).toHaveLength(0);

  for (const bad of ['', 'short', 'x'.repeat(65), 'not a key!']) {
    const refused = await post('/console/campaigns', { ...CAMPAIGN, name: other, _key: bad });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Reload the page');
  }
  expect(await campaignsNamed(other)).toHaveLength(0);
});

it('acts on a post with no key at all, as on a REST call without Idempotency-Key', async () => {
  const name = `Keyless ${randomUUID().slice(0, 8)}`;
  // pageRequest, not consoleRequest (which adds a fresh key as a rendered form carries).
  const first = await pageRequest('/console/campaigns', {
    cookie: owner.cookie,
    form: { _csrf: owner.csrf, ...CAMPAIGN, name },
    origin: origin(),
  });
  expect(first.status).toBe(303);
  expect(first.location).toMatch(/^\/console\/campaigns\/[0-9a-f-]{36}\?done=created$/);
  expect(await campaignsNamed(name)).toHaveLength(1);
});

it('pays a payout once and creates one export when their forms are posted twice', async () => {
  const { payout } = await payableAffiliate(merchant.api_secret, merchant.merchant_id, 2500, 'NOK');
  const payKey = randomUUID();
  const paid = await post(`/console/payouts/${payout.id}/pay`, { _key: payKey });
  expect(paid.status).toBe(303);
  // Without the key the repeat is the service's refusal (422 "already paid"): here it is the
  // first answer again.
  const repeat = await post(`/console/payouts/${payout.id}/pay`, { _key: payKey });
  expect(repeat.status).toBe(303);
  expect(repeat.location).toBe(paid.location);
  expect((await rest().get(`/v1/payouts/${payout.id}`)).body.state).toBe('paid');

  await payableAffiliate(merchant.api_secret, merchant.merchant_id, 3100, 'SEK');
  const form = { format: 'csv', currency: 'SEK', _key: randomUUID() };
  const made = await post('/console/payouts/exports', form);
  expect(made.status).toBe(303);
  const again = await post('/console/payouts/exports', form);
  expect(again.status).toBe(303);
  expect(again.location).toBe(made.location);
  const exports = (await rest().get('/v1/payout_exports?limit=100')).body.data as {
    currency: string;
  }[];
  expect(exports.filter((e) => e.currency === 'SEK')).toHaveLength(1);
});

it('never replays a portal sign-in link: a repeat gets the "already sent" page', async () => {
  const created = await rest().post('/v1/affiliates', {
    first_name: 'Portal',
    last_name: 'Once',
    email: `portal-${randomUUID()}@example.com`,
  });
  const id = created.body.id as string;
  const form = { from: 'detail', _key: randomUUID() };
  const first = await post(`/console/affiliates/${id}/portal`, form);
  expect(first.status).toBe(303);
  expect(first.location).toContain('/portal/sso?token=');
  const again = await post(`/console/affiliates/${id}/portal`, form);
  expect(again.status).toBe(409);
  expect(again.location).toBeNull();
  expect(again.text).not.toContain('token=');
});

it("replays a page under the repeat's own CSP nonce (its styles would be refused otherwise)", async () => {
  const send = () =>
    fetch(`${gatewayUrl()}/console/campaigns`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: owner.cookie,
        origin: origin(),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        _csrf: owner.csrf,
        _key: key,
        ...CAMPAIGN,
        commission_percent: '150',
        name,
      }).toString(),
    });
  const key = randomUUID();
  const name = `Refused ${randomUUID().slice(0, 8)}`;
  const nonces = async (res: Response) => ({
    header: /style-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1],
    page: /<style nonce="([^"]+)"/.exec(await res.text())?.[1],
  });
  const first = await send();
  expect(first.status).toBe(422);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const one = await nonces(first);
  expect(one.page).toBe(one.header);
  const again = await send();
  expect(again.status).toBe(422);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  const two = await nonces(again);
  expect(two.header).toBeDefined();
  expect(two.header).not.toBe(one.header);
  expect(two.page).toBe(two.header);
});
