/**
 * Turning a webhook endpoint off and on again from the console, through the real gateway: the
 * REST API's update (`enabled`), so the endpoint is as the API shows it and an endpoint the
 * platform disabled after its failures resumes with a fresh health once turned on; deliveries
 * follow the switch. Viewers, forged posts and another merchant's endpoint change nothing.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { api, gatewayUrl } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest } from './support/console';
import { ownerAndViewer, type consoleUser } from './support/console-money';
import { eventually } from './support/processor';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

type User = Awaited<ReturnType<typeof consoleUser>>;
let merchant: TestMerchant;
let other: TestMerchant;
let owner: User;
let viewer: User;
let receiver: WebhookReceiver;
let endpointId: string;
let webhookDb: mongoose.Connection;
const rest = (m = merchant) => api(m.api_secret);
const origin = () => new URL(gatewayUrl()).origin;

beforeAll(async () => {
  [merchant, other] = await Promise.all([
    createMerchant({ rateLimit: 100_000 }),
    createMerchant({ rateLimit: 100_000 }),
  ]);
  [owner, viewer] = await ownerAndViewer(merchant.merchant_id);
  ({ receiver, endpointId } = await subscribedReceiver(merchant, ['affiliate.created']));
  webhookDb = await mongoose
    .createConnection(process.env.MONGO_URL!, { dbName: 'webhook' })
    .asPromise();
}, 60_000);
afterAll(async () => {
  await webhookDb?.close();
  await receiver?.stop();
});

const post = (path: string, user: User, extra: { origin?: string; csrf?: string } = {}) =>
  consoleRequest(path, {
    cookie: user.cookie,
    form: { _csrf: extra.csrf ?? user.csrf },
    origin: extra.origin ?? origin(),
  });
const endpoint = async () => (await rest().get(`/v1/webhook_endpoints/${endpointId}`)).body;
const createdFor = (affiliateId: string) =>
  receiver.requests
    .filter(ofType('affiliate.created'))
    .filter((r) => (r.json as { object?: { id?: string } }).object?.id === affiliateId);

it('turns an endpoint off and on again as the REST API does; deliveries follow', async () => {
  const list = await consoleRequest('/console/webhooks', { cookie: owner.cookie });
  expect(list.text).toContain(`action="/console/webhooks/${endpointId}/disable"`);

  const off = await post(`/console/webhooks/${endpointId}/disable`, owner);
  expect(off.status).toBe(303);
  expect(off.location).toBe('/console/webhooks?done=disabled');
  expect((await endpoint()).enabled).toBe(false);
  const page = await consoleRequest(off.location!, { cookie: owner.cookie });
  expect(page.text).toContain('Endpoint turned off');
  expect(page.text).toContain('Turned off');
  expect(page.text).toContain(`action="/console/webhooks/${endpointId}/enable"`);
  const whileOff = await createAffiliate(merchant);

  const on = await post(`/console/webhooks/${endpointId}/enable`, owner);
  expect(on.status).toBe(303);
  expect(on.location).toBe('/console/webhooks?done=enabled');
  expect((await endpoint()).enabled).toBe(true);
  const afterOn = await createAffiliate(merchant);
  await eventually(async () => (createdFor(afterOn.id).length > 0 ? true : undefined), 20_000);
  expect(createdFor(whileOff.id)).toEqual([]);
}, 60_000);

it('turning on an endpoint the platform disabled clears its failure record', async () => {
  // What the webhook service writes after days of failures (not reachable in a test's time).
  const since = new Date(Date.now() - 4 * 86_400_000);
  await webhookDb.collection<{ _id: string }>('webhook_endpoints').updateOne(
    { _id: endpointId },
    {
      $set: {
        enabled: false,
        disabled_at: new Date(),
        disabled_reason: 'Failed for 3 days',
        failing_since: since,
      },
    },
  );
  const list = await consoleRequest('/console/webhooks', { cookie: owner.cookie });
  expect(list.text).toContain('Failed for 3 days');
  expect((await post(`/console/webhooks/${endpointId}/enable`, owner)).status).toBe(303);
  const rest = await endpoint();
  expect(rest.enabled).toBe(true);
  expect(rest.disabled_at).toBeNull();
  expect(rest.failing_since).toBeNull();
  const again = await consoleRequest('/console/webhooks', { cookie: owner.cookie });
  expect(again.text).toContain('Healthy');
});

it("refuses viewers, forged posts and another merchant's endpoint; nothing changes", async () => {
  const seen = await consoleRequest('/console/webhooks', { cookie: viewer.cookie });
  expect(seen.status).toBe(200);
  expect(seen.text).not.toContain('/disable"');
  expect((await post(`/console/webhooks/${endpointId}/disable`, viewer)).status).toBe(403);
  const forged = await post(`/console/webhooks/${endpointId}/disable`, owner, {
    origin: 'https://evil.example',
  });
  expect(forged.status).toBe(403);
  expect((await post(`/console/webhooks/${endpointId}/disable`, owner, { csrf: 'x' })).status).toBe(
    403,
  );
  expect((await endpoint()).enabled).toBe(true);

  const theirs = await rest(other).post('/v1/webhook_endpoints', {
    url: `${receiver.url}?m=${other.merchant_id}`,
  });
  const foreign = await post(`/console/webhooks/${theirs.body.id}/disable`, owner);
  expect(foreign.status).toBe(404);
  expect((await rest(other).get(`/v1/webhook_endpoints/${theirs.body.id}`)).body.enabled).toBe(
    true,
  );
  for (const path of [
    `/console/webhooks/${endpointId}/delete`,
    `/console/webhooks/not-an-id/disable`,
    `/console/webhooks/${randomUUID()}/disable`,
  ]) {
    expect((await post(path, owner)).status).toBe(404);
  }
});
