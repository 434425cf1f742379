/**
 * Faults through the real gateway: a service that is down or hangs gives a prompt JSON 503/504,
 * a restarted service picks up where it left off, and a Redis outage does not fail requests.
 */
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { STREAMS } from '@aff/contracts';
import { api } from './support/http';
import { deadRedisUrl, startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { createMerchant, type TestMerchant } from './support/merchant';
import { sendProcessorEvent } from './support/processor';

describe('when the affiliate service is down or hangs', () => {
  let isolated: IsolatedSystem;
  let merchant: TestMerchant;
  beforeAll(async () => {
    isolated = await startIsolatedSystem({ env: { RPC_TIMEOUT_MS: '800' } });
    merchant = await createMerchant();
  });
  afterAll(async () => {
    await isolated?.stop();
  });

  it('answers 503 at once while no replica runs, then serves the same data after a restart', async () => {
    const client = api(merchant.api_secret, isolated.system.gatewayUrl);
    const created = await client.post('/v1/affiliates', {
      first_name: 'Sur',
      last_name: 'Vivor',
      email: `survivor-${Date.now()}@example.com`,
    });
    expect(created.status).toBe(200);

    await isolated.system.stopProcess('affiliate', 'SIGKILL');
    // At once: 503 comes from NATS saying no replica listens; waiting for one would have ended
    // in the time-out's 504 (the hanging case below). The status tells them apart, not a clock
    // (a timed bound failed on a loaded CI machine).
    const down = await client.get('/v1/affiliates');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'Service unavailable: affiliate. Try again shortly.' });

    await isolated.system.startProcess('affiliate');
    const back = await client.get(`/v1/affiliates/${created.body.id}`);
    expect(back.status).toBe(200);
    expect(back.body).toEqual(created.body);
  });

  it('answers 504 when the service does not reply in time', async () => {
    await isolated.system.stopProcess('affiliate');
    const nc = await connect({ servers: isolated.infra.natsUrl });
    // A replica that takes requests and never answers.
    const hang = nc.subscribe('rpc.affiliate.*', {
      queue: 'affiliate-rpc',
      callback: () => undefined,
    });
    // The server must have the subscription before the gateway's request arrives.
    await nc.flush();
    try {
      const res = await api(merchant.api_secret, isolated.system.gatewayUrl).get('/v1/affiliates');
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ error: 'Service timed out: affiliate. Try again shortly.' });
    } finally {
      hang.unsubscribe();
      await nc.close();
      await isolated.system.startProcess('affiliate');
    }
  });
});

describe('when the processor hook cannot store an event', () => {
  let isolated: IsolatedSystem;
  beforeAll(async () => {
    isolated = await startIsolatedSystem();
  });
  afterAll(async () => {
    await isolated?.stop();
  });

  it('answers 503 with Retry-After (the processor retries), never 500', async () => {
    const merchant = await createMerchant();
    const customer = { id: `cus_${Date.now()}`, email: 'hook@example.com' };
    const before = await sendProcessorEvent(merchant, 'customer.created', customer, {
      baseUrl: isolated.system.gatewayUrl,
    });
    expect(before.status).toBe(200);
    // As while NATS restarts and has not loaded the stream yet: the publish has no taker.
    const nc = await connect({ servers: isolated.infra.natsUrl });
    try {
      await (await jetstreamManager(nc)).streams.delete(STREAMS.gateway.name);
    } finally {
      await nc.close();
    }
    const res = await sendProcessorEvent(merchant, 'customer.updated', customer, {
      baseUrl: isolated.system.gatewayUrl,
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toEqual({ error: 'Service unavailable: events. Try again shortly.' });
  });
});

describe('when Redis is unreachable', () => {
  let isolated: IsolatedSystem;
  beforeAll(async () => {
    isolated = await startIsolatedSystem({ redisUrl: await deadRedisUrl() });
  });
  afterAll(async () => {
    await isolated?.stop();
  });

  it('limits with the in-process fallback instead of failing requests', async () => {
    const merchant = await createMerchant({ rateLimit: 2 });
    const client = api(merchant.api_secret, isolated.system.gatewayUrl);
    const first = await client.get('/v1/affiliates');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect((await client.get('/v1/affiliates')).status).toBe(200);
    const third = await client.get('/v1/affiliates');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
