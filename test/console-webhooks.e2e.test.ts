/**
 * The console's webhooks pages through the real gateway: endpoints with their health (healthy,
 * failing, turned off) and never a signing secret; the delivery log with response codes, paged
 * and filtered in the URL; Redeliver sends the same delivery again (the receiver sees it, the
 * log shows it); a viewer's and a forged redeliver change nothing; another merchant's endpoint
 * and delivery are 404; bad query values never 500.
 */
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest } from './support/console';
import { consoleUser, ownerAndViewer } from './support/console-money';
import { eventually } from './support/processor';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

type User = Awaited<ReturnType<typeof consoleUser>>;
let merchant: TestMerchant;
let owner: User;
let viewer: User;
let good: WebhookReceiver;
let bad: WebhookReceiver;
const endpoints: Record<'good' | 'bad' | 'off', { id: string; secret: string }> = {} as never;
const rest = () => api(merchant.api_secret);

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  [owner, viewer] = await ownerAndViewer(merchant.merchant_id);
  good = await startReceiver();
  bad = await startReceiver();
  bad.answer = () => 500;
  for (const [name, url, enabled] of [
    ['good', good.url, 'true'],
    ['bad', bad.url, 'true'],
    ['off', `${good.url}/off`, 'false'],
  ] as const) {
    const made = await rest().post('/v1/webhook_endpoints', {
      url: `${url}?m=${merchant.merchant_id}`,
      events: ['affiliate.created'],
      enabled,
    });
    expect(made.status).toBe(200);
    endpoints[name] = { id: made.body.id, secret: made.body.secret };
  }
});
afterAll(async () => {
  await good?.stop();
  await bad?.stop();
});

const post = (path: string, user: User, form: Record<string, string> = {}, origin?: string) =>
  consoleRequest(path, { cookie: user.cookie, form: { _csrf: user.csrf, ...form }, origin });

async function deliveriesOf(endpointId: string) {
  const res = await rest().get(`/v1/webhook_endpoints/${endpointId}/deliveries`);
  return res.body.data as { id: string; state: string; attempts: { response_status: number }[] }[];
}

it('shows each endpoint with its health, a failing one as failing, and no secret', async () => {
  const affiliate = await createAffiliate(merchant, { first_name: 'Hook', last_name: 'Target' });
  await good.waitFor((r) => r.json?.object?.id === affiliate.id);
  await eventually(async () => {
    const endpoint = await rest().get(`/v1/webhook_endpoints/${endpoints.bad.id}`);
    return endpoint.body.failing_since ? true : undefined;
  });
  const page = await consoleRequest('/console/webhooks', { cookie: viewer.cookie });
  expect(page.status).toBe(200);
  const row = (id: string) => {
    const start = page.text.indexOf(`/console/webhooks/${id}`);
    expect(start).toBeGreaterThan(-1);
    return page.text.slice(start, page.text.indexOf('</tr>', start));
  };
  expect(row(endpoints.good.id)).toContain('Healthy');
  expect(row(endpoints.bad.id)).toContain('Failing');
  expect(row(endpoints.off.id)).toContain('Turned off');
  for (const { secret } of Object.values(endpoints)) {
    expect(secret).toMatch(/^whsec_/);
    expect(page.text).not.toContain(secret);
  }
  const log = await consoleRequest(`/console/webhooks/${endpoints.bad.id}`, {
    cookie: viewer.cookie,
  });
  expect(log.status).toBe(200);
  expect(log.text).toContain('Failing');
  expect(log.text).toContain('affiliate.created');
  expect(log.text).toMatch(/<span class="code">500<\/span>/);
  expect(log.text).not.toContain(endpoints.bad.secret);
});

it('redelivers from the page: the receiver gets it again and the log shows the attempt', async () => {
  const affiliate = await createAffiliate(merchant, { first_name: 'Again', last_name: 'Please' });
  const [first] = await good.waitFor((r) => r.json?.object?.id === affiliate.id);
  const delivery = await eventually(async () => {
    const found = (await deliveriesOf(endpoints.good.id)).find(
      (d) => d.id === first!.headers['webhook-id'] && d.state === 'delivered',
    );
    return found;
  });
  const logPath = `/console/webhooks/${endpoints.good.id}`;
  const before = await consoleRequest(`${logPath}?state=delivered`, { cookie: owner.cookie });
  expect(before.text).toContain(`${logPath}/deliveries/${delivery.id}/redeliver`);
  expect(before.text).toMatch(/<span class="code">200<\/span>/);

  const action = `${logPath}/deliveries/${delivery.id}/redeliver`;
  const viewed = await consoleRequest(`${logPath}?state=delivered`, { cookie: viewer.cookie });
  expect(viewed.text).toContain('affiliate.created');
  expect(viewed.text).not.toContain('/redeliver');
  expect((await post(action, viewer)).status).toBe(403);
  expect((await post(action, owner, {}, 'https://evil.example')).status).toBe(403);
  expect((await consoleRequest(action, { cookie: owner.cookie, form: {} })).status).toBe(403);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const sameId = (r: { headers: Record<string, string> }) =>
    r.headers['webhook-id'] === delivery.id;
  expect(good.requests.filter(sameId)).toHaveLength(1);

  const sent = await post(action, owner, { state: 'delivered' });
  expect(sent.status).toBe(303);
  expect(sent.location).toBe(`${logPath}?state=delivered&done=redelivered`);
  const both = await good.waitFor(sameId, 2);
  expect(both[1]!.json.object.id).toBe(affiliate.id);
  const after = await eventually(async () => {
    const page = await consoleRequest(`${logPath}?state=delivered`, { cookie: owner.cookie });
    return /<summary>2<span class="sr"> attempts of affiliate.created/.test(page.text)
      ? page
      : undefined;
  });
  expect(after.status).toBe(200);
  const twice = (await deliveriesOf(endpoints.good.id)).find((d) => d.id === delivery.id)!;
  expect(twice.attempts.map((a) => a.response_status)).toEqual([200, 200]);
  expect(good.requests.filter(ofType('affiliate.created')).length).toBeGreaterThanOrEqual(2);
});

it("never reaches another merchant's endpoints or deliveries, and bad query values never 500", async () => {
  const [delivery] = await deliveriesOf(endpoints.good.id);
  expect(delivery).toBeDefined();
  const other = await createMerchant({ rateLimit: 100_000 });
  const stranger = await consoleUser(other.merchant_id, 'owner');
  const theirs = await consoleRequest('/console/webhooks', { cookie: stranger.cookie });
  expect(theirs.status).toBe(200);
  expect(theirs.text).not.toContain(endpoints.good.id);
  const log = `/console/webhooks/${endpoints.good.id}`;
  expect((await consoleRequest(log, { cookie: stranger.cookie })).status).toBe(404);
  const before = good.requests.length;
  const foreign = await post(`${log}/deliveries/${delivery!.id}/redeliver`, stranger);
  expect(foreign.status).toBe(404);
  const ownEndpoint = await post(
    `/console/webhooks/${randomUUID()}/deliveries/${delivery!.id}/redeliver`,
    stranger,
  );
  expect(ownEndpoint.status).toBe(404);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(good.requests.length).toBe(before);

  for (const path of [
    '/console/webhooks?page=-1',
    '/console/webhooks?page=abc&sort=%00',
    `${log}?state=nonsense&page=0`,
    `${log}?page=99999999999999`,
    `${log}?state=failed`,
  ]) {
    expect([path, (await consoleRequest(path, { cookie: owner.cookie })).status]).toEqual([
      path,
      200,
    ]);
  }
  for (const path of ['/console/webhooks/not-a-uuid', `/console/webhooks/${randomUUID()}`]) {
    expect([path, (await consoleRequest(path, { cookie: owner.cookie })).status]).toEqual([
      path,
      404,
    ]);
  }
  const badDelivery = await post(`${log}/deliveries/not-a-uuid/redeliver`, owner);
  expect(badDelivery.status).toBe(404);
});
