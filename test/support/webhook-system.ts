/** For end-to-end tests of webhook delivery in a system of their own (retries, crashes, health). */
import { waitForDelivery } from '../../services/webhook/test/support/delivery-log';
import {
  startReceiver,
  type WebhookReceiver,
} from '../../services/webhook/test/support/webhook-receiver';
import { api } from './http';
import { startIsolatedSystem, type IsolatedSystem } from './isolated-system';
import { createMerchant } from './merchant';

export interface WebhookSystem {
  isolated: IsolatedSystem;
}

/**
 * An isolated system whose services run with `env`, its webhook service on a database of its
 * own (`<dbName>_<time>`: the shared system's webhook service must not send these deliveries);
 * started before the file's tests (up to 2 minutes), stopped after them. With `warmUp`, one
 * delivery is made first: a fresh process's first request (connections, compiling) can be slow,
 * or pass a short request timeout on a busy machine. The field is set by that `beforeAll`, so
 * read it inside tests and hooks.
 */
export function webhookSystemPerFile(
  dbName: string,
  env: NodeJS.ProcessEnv,
  opts: { warmUp?: boolean } = {},
): WebhookSystem {
  const sys = {} as WebhookSystem;
  beforeAll(async () => {
    sys.isolated = await startIsolatedSystem({
      env: { ...env, WEBHOOK_MONGO_DB: `${dbName}_${Date.now()}` },
    });
    if (opts.warmUp) await warmUp(sys.isolated.system.gatewayUrl);
  }, 120_000);
  afterAll(async () => {
    await sys.isolated?.stop();
  });
  return sys;
}

async function warmUp(gatewayUrl: string): Promise<void> {
  const receiver = await startReceiver();
  try {
    const { client, addEndpoint, createAffiliate } = await webhookMerchant(gatewayUrl, {
      first: 'Warm',
      last: 'Up',
    });
    const endpoint = await addEndpoint(receiver.url);
    expect((await createAffiliate()).status).toBe(200);
    await waitForDelivery(client.get, endpoint.id, (d) => d.state === 'delivered');
  } finally {
    await receiver.stop();
  }
}

let seq = 0;
/**
 * A fresh merchant of the system at `gatewayUrl`: its REST client, a way to add an endpoint
 * (checked saved; subscribed to affiliate.created unless told otherwise), and a way to cause an
 * event, creating an affiliate named `name` (its answer, for the caller to check).
 */
export async function webhookMerchant(gatewayUrl: string, name: { first: string; last: string }) {
  const merchant = await createMerchant({ rateLimit: 1000 });
  const client = api(merchant.api_secret, gatewayUrl);
  const addEndpoint = async (url: string, events = ['affiliate.created']) => {
    const created = await client.post('/v1/webhook_endpoints', { url, 'events[]': events });
    expect(created.status).toBe(200);
    return created.body;
  };
  const createAffiliate = () =>
    client.post('/v1/affiliates', {
      first_name: name.first,
      last_name: name.last,
      email: `${name.first.toLowerCase()}${Date.now()}${++seq}@example.com`,
    });
  return { client, addEndpoint, createAffiliate };
}

/** `receiver()` starts a webhook receiver that is stopped after the test (of the block) it ran in. */
export function receiversPerTest(): () => Promise<WebhookReceiver> {
  const started: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
  });
  return async () => {
    const receiver = await startReceiver();
    started.push(receiver);
    return receiver;
  };
}
