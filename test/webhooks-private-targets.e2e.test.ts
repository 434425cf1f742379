/**
 * With WEBHOOK_ALLOW_PRIVATE_TARGETS off (the production default), a merchant cannot make the
 * platform send requests into private networks: IP literals are refused when the endpoint is
 * saved, host names when they resolve, at every delivery.
 */
import { api } from './support/http';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { createMerchant } from './support/merchant';
import { waitForDelivery } from '../services/webhook/test/support/delivery-log';
import {
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

let isolated: IsolatedSystem;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
  isolated = await startIsolatedSystem({
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
      WEBHOOK_MONGO_DB: `webhook_private_${Date.now()}`,
    },
  });
}, 120_000);
afterAll(async () => {
  await isolated?.stop();
  await receiver?.stop();
});

describe('private webhook targets', () => {
  it('are refused when an endpoint is created or updated with a private IP address', async () => {
    const client = api((await createMerchant()).api_secret, isolated.system.gatewayUrl);
    for (const url of [
      receiver.url,
      `http://[::1]:${receiver.port}/hooks`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/hooks',
      'http://2130706433/hooks',
    ]) {
      const res = await client.post('/v1/webhook_endpoints', { url });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'Could not create webhook endpoint.',
        details: ['Url must not point to a private, loopback or link-local address'],
      });
    }
    const ok = await client.post('/v1/webhook_endpoints', { url: 'https://example.com/hooks' });
    const update = await client.put(`/v1/webhook_endpoints/${ok.body.id}`, { url: receiver.url });
    expect(update.body).toEqual({
      error: 'Could not update webhook endpoint.',
      details: ['Url must not point to a private, loopback or link-local address'],
    });
  });

  it('are refused at delivery time when a host name resolves to one', async () => {
    const merchant = await createMerchant({ rateLimit: 1000 });
    const client = api(merchant.api_secret, isolated.system.gatewayUrl);
    const endpoint = await client.post('/v1/webhook_endpoints', {
      url: `http://localhost:${receiver.port}/hooks`,
      'events[]': ['affiliate.created'],
    });
    expect(endpoint.status).toBe(200);
    await client.post('/v1/affiliates', {
      first_name: 'Ssrf',
      last_name: 'Probe',
      email: `ssrf${Date.now()}@example.com`,
    });
    const delivery = await waitForDelivery(client.get, endpoint.body.id, (d) =>
      d.attempts.some((a: any) => a.duration_ms !== null),
    );
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ response_status: null });
    expect(delivery.attempts[0].error).toMatch(
      /^Refused: localhost resolves to a private, loopback or link-local address \((127\.0\.0\.1|::1)\)$/,
    );
    expect(receiver.requests).toEqual([]);
  });
});
