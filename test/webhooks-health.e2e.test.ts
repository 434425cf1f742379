/**
 * Webhook endpoint health through the real gateway, in an isolated system whose durations are
 * compressed (time scale 1/20000: the 3-day retry window lasts 13 s):
 * - an endpoint whose attempts all fail for the disable period (16 h here: 2.9 s) is disabled,
 *   shows `disabled_at` and `disabled_reason`, and the merchant's other endpoint hears
 *   `webhook_endpoint.disabled`; enabled again, it gets new events and its kept delivery, but
 *   never the events of while it was disabled;
 * - a rotated secret: both signatures during the overlap (a receiver with either secret
 *   verifies with the `standardwebhooks` package), the new one alone after it;
 * - finished deliveries are pruned after the retention period; pending ones stay.
 */
import { Webhook } from 'standardwebhooks';
import { webhookEndpointDisabledSchema } from '@aff/contracts';
import type { api } from './support/http';
import { receiversPerTest, webhookMerchant, webhookSystemPerFile } from './support/webhook-system';
import { waitForDelivery, waitForLog } from '../services/webhook/test/support/delivery-log';
import { ofType, type ReceivedRequest } from '../services/webhook/test/support/webhook-receiver';

const TIME_SCALE = 0.00005;
const HOUR = 3_600_000;
const DISABLE_AFTER_MS = 16 * HOUR; // 2.88 s scaled
const OVERLAP_MS = 100_000_000; // 5 s scaled
const RETENTION_MS = 80_000_000; // 4 s scaled

const sys = webhookSystemPerFile('webhook_health', {
  WEBHOOK_TIME_SCALE: String(TIME_SCALE),
  WEBHOOK_TIMEOUT_MS: '500',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS),
  WEBHOOK_SECRET_OVERLAP_MS: String(OVERLAP_MS),
  WEBHOOK_LOG_RETENTION_MS: String(RETENTION_MS),
  WEBHOOK_PRUNE_INTERVAL_MS: '500',
  OUTBOX_SWEEP_MS: '200',
});

const receiver = receiversPerTest();

async function merchantClient() {
  const { client, addEndpoint, createAffiliate } = await webhookMerchant(
    sys.isolated.system.gatewayUrl,
    { first: 'Health', last: 'Check' },
  );
  const created = async () => {
    const res = await createAffiliate();
    expect(res.status).toBe(200);
    return res.body;
  };
  return { client, addEndpoint, createAffiliate: created };
}

async function waitForEndpoint(
  client: ReturnType<typeof api>,
  id: string,
  until: (endpoint: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await client.get(`/v1/webhook_endpoints/${id}`);
    if (until(body)) return body;
    if (Date.now() > deadline) throw new Error(`endpoint did not match: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const objectId = (id: string) => (r: ReceivedRequest) => r.json?.object?.id === id;
const verifies = (secret: string, r: ReceivedRequest) => {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

describe('webhook endpoint health', () => {
  it('disables an endpoint whose attempts all failed for the period, tells the merchant, and resumes once enabled', async () => {
    const { client, addEndpoint, createAffiliate } = await merchantClient();
    const failing = await receiver();
    failing.answer = () => 500;
    const watcher = await receiver();
    const endpoint = await addEndpoint(failing.url, ['affiliate.created']);
    const other = await addEndpoint(watcher.url, ['webhook_endpoint.disabled']);
    expect(endpoint).toMatchObject({
      failing_since: null,
      disabled_at: null,
      disabled_reason: null,
    });

    const kept = await createAffiliate();
    const [first] = await failing.waitFor(ofType('affiliate.created'));
    const started = await waitForEndpoint(client, endpoint.id, (e) => e.failing_since !== null);
    expect(started.enabled).toBe(true);
    expect(Date.parse(started.failing_since)).toBeLessThanOrEqual(first!.receivedAt);

    const disabled = await waitForEndpoint(client, endpoint.id, (e) => e.enabled === false);
    expect(disabled.disabled_reason).toBe('Every delivery attempt failed for 16 hours');
    expect(disabled.failing_since).toBe(started.failing_since);
    const failedFor = Date.parse(disabled.disabled_at) - Date.parse(disabled.failing_since);
    expect(failedFor).toBeGreaterThanOrEqual(DISABLE_AFTER_MS * TIME_SCALE);
    // Several attempts, all answered 500 (missed slots are skipped, so fewer than 11 retries).
    expect(failing.requests.length).toBeGreaterThanOrEqual(2);

    // The merchant's other endpoint hears of it, signed with its own secret.
    const [told] = await watcher.waitFor(ofType('webhook_endpoint.disabled'));
    expect(verifies(other.secret, told!)).toBe(true);
    const object = webhookEndpointDisabledSchema.parse(told!.json.object);
    expect(object).toMatchObject({
      id: endpoint.id,
      url: failing.url,
      events: ['affiliate.created'],
      enabled: false,
      disabled_at: disabled.disabled_at,
      disabled_reason: disabled.disabled_reason,
    });
    expect(told!.json.object).not.toHaveProperty('secret');

    // While disabled, new events make no delivery for it.
    const missed = await createAffiliate();
    await sleep(800);
    expect(failing.requests.filter(objectId(missed.id))).toHaveLength(0);

    failing.answer = () => 200;
    const enabled = await client.put(`/v1/webhook_endpoints/${endpoint.id}`, { enabled: 'true' });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({
      enabled: true,
      failing_since: null,
      disabled_at: null,
      disabled_reason: null,
    });
    const fresh = await createAffiliate();
    await failing.waitFor(objectId(fresh.id));
    // The delivery kept from before is delivered at its next slot, with its webhook-id.
    const keptDelivery = await waitForDelivery(
      client.get,
      endpoint.id,
      (d) =>
        d.event_type === 'affiliate.created' &&
        d.state === 'delivered' &&
        d.id === first!.headers['webhook-id'],
    );
    expect(keptDelivery.attempts.at(-1).response_status).toBe(200);
    expect(failing.requests.filter(objectId(kept.id)).at(-1)!.headers['webhook-id']).toBe(
      keptDelivery.id,
    );
    expect(failing.requests.filter(objectId(missed.id))).toHaveLength(0);
    expect((await client.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.enabled).toBe(true);
  }, 60_000);

  it('rotates the signing secret: both verify during the overlap, only the new one after it', async () => {
    const { client, addEndpoint, createAffiliate } = await merchantClient();
    const hook = await receiver();
    const endpoint = await addEndpoint(hook.url, ['affiliate.created']);
    const oldSecret: string = endpoint.secret;

    const rotated = await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: endpoint.id, url: hook.url, enabled: true });
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect((await client.get(`/v1/webhook_endpoints/${endpoint.id}`)).body).not.toHaveProperty(
      'secret',
    );

    const during = await createAffiliate();
    const [both] = await hook.waitFor(objectId(during.id));
    expect(both!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifies(oldSecret, both!)).toBe(true);
    expect(verifies(newSecret, both!)).toBe(true);

    await sleep(OVERLAP_MS * TIME_SCALE + 200);
    const after = await createAffiliate();
    const [single] = await hook.waitFor(objectId(after.id));
    expect(single!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifies(newSecret, single!)).toBe(true);
    expect(verifies(oldSecret, single!)).toBe(false);

    const unknown = await client.post('/v1/webhook_endpoints/no-such-endpoint/rotate_secret', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Webhook endpoint not found: no-such-endpoint' });
  }, 60_000);

  it('prunes finished deliveries after the retention period and keeps pending ones', async () => {
    const { client, addEndpoint, createAffiliate } = await merchantClient();
    const good = await receiver();
    const bad = await receiver();
    bad.answer = () => 503;
    const delivering = await addEndpoint(good.url, ['affiliate.created']);
    const retrying = await addEndpoint(bad.url, ['affiliate.created']);
    await createAffiliate();

    const delivered = await waitForDelivery(
      client.get,
      delivering.id,
      (d) => d.state === 'delivered',
    );
    const finishedAt = Date.parse(delivered.updated_at);
    await waitForLog(client.get, delivering.id, (all) => all.length === 0, 15_000);
    expect(Date.now() - finishedAt).toBeGreaterThanOrEqual(RETENTION_MS * TIME_SCALE);

    // Still pending (its 3-day window lasts 13 s here), so it is kept with all its attempts.
    const pending = await waitForLog(client.get, retrying.id, (all) => all.length === 1);
    expect(pending[0].state).toBe('pending');
    expect(pending[0].attempts.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
