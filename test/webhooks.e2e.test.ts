/**
 * Webhooks through the real gateway and the whole system: endpoints, signed deliveries of the
 * spec's payload to a real receiver, event filters, tenant isolation, the log and redelivery.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { findEvents } from './support/events';
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';
import { waitForDelivery } from '../services/webhook/test/support/delivery-log';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
const uniqueEmail = () => `hook${Date.now()}${++seq}@example.com`;

function newAffiliate(client: ReturnType<typeof api>) {
  return client.post('/v1/affiliates', {
    first_name: 'Jane',
    last_name: 'Doe',
    email: uniqueEmail(),
  });
}

describe('webhook endpoints', () => {
  let merchant: TestMerchant;
  let client: ReturnType<typeof api>;
  beforeAll(async () => {
    merchant = await createMerchant();
    client = api(merchant.api_secret);
  });

  it('are created with every event by default and answer the signing secret only once', async () => {
    const created = await client.post('/v1/webhook_endpoints', { url: 'https://example.com/a' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      url: 'https://example.com/a',
      events: ['*'],
      enabled: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      failing_since: null,
      disabled_at: null,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = created.body;
    expect(secret).toBeDefined();
    const fetched = await client.get(`/v1/webhook_endpoints/${created.body.id}`);
    expect(fetched).toMatchObject({ status: 200, body: shown });
    expect(fetched.body).not.toHaveProperty('secret');
  });

  it('take events as a form list or a JSON array', async () => {
    const form = await client.post('/v1/webhook_endpoints', {
      url: 'https://example.com/b',
      'events[]': ['affiliate.created', 'payout.paid'],
    });
    expect(form.body.events).toEqual(['affiliate.created', 'payout.paid']);
    const json = await client.postJson('/v1/webhook_endpoints', {
      url: 'https://example.com/c',
      events: ['commission.created'],
    });
    expect(json.status).toBe(200);
    expect(json.body.events).toEqual(['commission.created']);
  });

  it('are listed newest first in the spec pagination envelope', async () => {
    const own = await createMerchant();
    const ownClient = api(own.api_secret);
    for (const n of [1, 2, 3]) {
      await ownClient.post('/v1/webhook_endpoints', { url: `https://example.com/${n}` });
    }
    const page = await ownClient.get('/v1/webhook_endpoints?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: 2,
      count: 2,
      limit: 2,
      total_pages: 2,
      total_count: 3,
    });
    expect(page.body.data.map((e: any) => e.url)).toEqual([
      'https://example.com/3',
      'https://example.com/2',
    ]);
    expect(page.body.data[0]).not.toHaveProperty('secret');
  });

  it('reject a URL that is not absolute http(s), and unknown event types, with details', async () => {
    const res = await client.post('/v1/webhook_endpoints', {
      url: 'example.com/hook',
      'events[]': ['affiliate.created', 'affiliate.exploded'],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Could not create webhook endpoint.',
      details: [
        'Url must be an absolute http(s) URL',
        'Events contains an unknown event type: affiliate.exploded',
      ],
    });
    const blank = await client.post('/v1/webhook_endpoints', {});
    expect(blank.body).toEqual({
      error: 'Could not create webhook endpoint.',
      details: ["Url can't be blank"],
    });
  });

  it('are updated with PUT or PATCH, and deleted', async () => {
    const created = await client.post('/v1/webhook_endpoints', { url: 'https://example.com/u' });
    const id = created.body.id;
    const put = await client.put(`/v1/webhook_endpoints/${id}`, {
      url: 'https://example.com/v',
      'events[]': ['payout.paid'],
      enabled: 'false',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      url: 'https://example.com/v',
      events: ['payout.paid'],
      enabled: false,
    });
    const patch = await request('PATCH', `/v1/webhook_endpoints/${id}`, {
      secret: merchant.api_secret,
      json: { enabled: true },
    });
    expect(patch.body).toMatchObject({ url: 'https://example.com/v', enabled: true });
    const invalid = await client.put(`/v1/webhook_endpoints/${id}`, { url: 'ftp://x' });
    expect(invalid.body).toEqual({
      error: 'Could not update webhook endpoint.',
      details: ['Url must be an absolute http(s) URL'],
    });

    const deleted = await request('DELETE', `/v1/webhook_endpoints/${id}`, {
      secret: merchant.api_secret,
    });
    expect(deleted).toMatchObject({ status: 200, body: { id, deleted: true } });
    const gone = await client.get(`/v1/webhook_endpoints/${id}`);
    expect(gone).toMatchObject({
      status: 404,
      body: { error: `Webhook endpoint not found: ${id}` },
    });
  });

  it('answer 404 for unknown or malformed ids, and for another merchant’s endpoint', async () => {
    const id = randomUUID();
    for (const path of [`/v1/webhook_endpoints/${id}`, `/v1/webhook_endpoints/${id}/deliveries`]) {
      expect((await client.get(path)).body).toEqual({
        error: `Webhook endpoint not found: ${id}`,
      });
    }
    expect((await client.get('/v1/webhook_endpoints/nope')).status).toBe(404);
    const mine = await client.post('/v1/webhook_endpoints', { url: 'https://example.com/m' });
    const other = api((await createMerchant()).api_secret);
    expect((await other.get(`/v1/webhook_endpoints/${mine.body.id}`)).status).toBe(404);
    const redeliver = await other.post(`/v1/webhook_deliveries/${id}/redeliver`, {});
    expect(redeliver).toMatchObject({
      status: 404,
      body: { error: `Webhook delivery not found: ${id}` },
    });
  });
});

describe('webhook delivery', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  async function subscribe(events?: string[], url = receiver.url) {
    const merchant = await createMerchant({ rateLimit: 1000 });
    const client = api(merchant.api_secret);
    const endpoint = await client.post('/v1/webhook_endpoints', {
      url: `${url}?m=${merchant.merchant_id}`,
      ...(events ? { 'events[]': events } : {}),
    });
    expect(endpoint.status).toBe(200);
    return { merchant, client, endpoint: endpoint.body };
  }
  const forMerchant = (merchantId: string) => (r: { path: string }) =>
    r.path.endsWith(`?m=${merchantId}`);

  it('sends a signed affiliate.created with the spec payload after POST /v1/affiliates', async () => {
    const { merchant, client, endpoint } = await subscribe();
    const affiliate = (await newAffiliate(client)).body;
    const [got] = await receiver.waitFor(
      (r) => forMerchant(merchant.merchant_id)(r) && ofType('affiliate.created')(r),
    );
    const req = got!;

    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['webhook-id']).toMatch(UUID);
    expect(req.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(endpoint.secret).verify(req.body, req.headers)).toEqual(req.json);

    expect(Object.keys(req.json)).toEqual(['object', 'event', 'request']);
    expect(req.json.event).toEqual({
      id: expect.stringMatching(UUID),
      type: 'affiliate.created',
      created_at: expect.stringMatching(ISO),
      api_version: 'v1',
    });
    expect(req.json.request).toEqual({ id: expect.stringMatching(UUID) });
    expect(req.json.object).toEqual({
      ...affiliate,
      referrals: 0,
      links: affiliate.links.map((link: any) => ({ ...link, referrals: 0 })),
    });
    expect(req.json.object.campaign).toEqual(affiliate.campaign);
  });

  // Trace context exists only with telemetry on (the default; OTEL_SDK_DISABLED=true turns it off).
  const whenTraced = process.env.OTEL_SDK_DISABLED === 'true' ? it.skip : it;
  whenTraced('sends the request in the trace of the call that caused the event', async () => {
    const { merchant, client } = await subscribe(['affiliate.created']);
    const affiliate = (await newAffiliate(client)).body;
    const [got] = await receiver.waitFor(
      (r) => forMerchant(merchant.merchant_id)(r) && r.json.object.id === affiliate.id,
    );
    const [published] = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate.created',
      (event) => event.id === got!.json.event.id,
    );
    const traceId = (traceparent: string | undefined) => traceparent?.split('-')[1];
    expect(traceId(published!.traceparent)).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId(got!.headers.traceparent)).toBe(traceId(published!.traceparent));
  });

  it('sends only the event types an endpoint subscribed to', async () => {
    const { merchant, client } = await subscribe(['campaign.created']);
    await newAffiliate(client);
    const campaign = (await client.post('/v1/campaigns', { name: 'Spring' })).body;
    const got = await receiver.waitFor(
      (r) => forMerchant(merchant.merchant_id)(r) && r.json.object.id === campaign.id,
    );
    expect(got[0]!.json.event.type).toBe('campaign.created');
    expect(got[0]!.json.object).toEqual(campaign);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const types = receiver.requests
      .filter(forMerchant(merchant.merchant_id))
      .map((r) => r.json.event.type);
    // The default campaign is created with the first affiliate: a campaign.created as well.
    expect(new Set(types)).toEqual(new Set(['campaign.created']));
  });

  it('sends a merchant only its own events', async () => {
    const a = await subscribe(['affiliate.created']);
    const b = await subscribe(['affiliate.created']);
    const created = (await newAffiliate(a.client)).body;
    await receiver.waitFor((r) => r.json?.object?.id === created.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sentTo = receiver.requests.filter((r) => r.json?.object?.id === created.id);
    expect(sentTo.map((r) => r.path)).toEqual([`/hooks?m=${a.merchant.merchant_id}`]);
    expect(receiver.requests.filter(forMerchant(b.merchant.merchant_id))).toEqual([]);
  });

  it('sends nothing to a disabled endpoint', async () => {
    const { merchant, client, endpoint } = await subscribe(['affiliate.created']);
    await client.put(`/v1/webhook_endpoints/${endpoint.id}`, { enabled: 'false' });
    await newAffiliate(client);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests.filter(forMerchant(merchant.merchant_id))).toEqual([]);
    const log = await client.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`);
    expect(log.body.data).toEqual([]);
  });

  it('logs each delivery with its attempts, and redelivers with the same webhook-id', async () => {
    const { merchant, client, endpoint } = await subscribe(['affiliate.created']);
    const affiliate = (await newAffiliate(client)).body;
    const mine = (r: any) =>
      forMerchant(merchant.merchant_id)(r) && r.json.object.id === affiliate.id;
    const [first] = await receiver.waitFor(mine);

    // The receiver has answered; the outcome is stored right after.
    await waitForDelivery(client.get, endpoint.id, (d) => d.state === 'delivered');
    const log = await client.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.pagination).toMatchObject({ count: 1, total_count: 1, current_page: 1 });
    const delivery = log.body.data[0];
    expect(delivery).toEqual({
      id: first!.headers['webhook-id'],
      endpoint_id: endpoint.id,
      event_id: first!.json.event.id,
      event_type: 'affiliate.created',
      state: 'delivered',
      attempts: [
        {
          request_id: first!.json.request.id,
          attempted_at: expect.stringMatching(ISO),
          response_status: 200,
          duration_ms: expect.any(Number),
          error: null,
        },
      ],
      next_attempt_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });

    const again = await client.post(`/v1/webhook_deliveries/${delivery.id}/redeliver`, {});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: delivery.id, state: 'pending' });
    const both = await receiver.waitFor(mine, 2);
    expect(both[1]!.headers['webhook-id']).toBe(delivery.id);
    expect(both[1]!.json.event).toEqual(first!.json.event);
    expect(both[1]!.json.request.id).not.toBe(first!.json.request.id);
    expect(both[1]!.json.object).toEqual(first!.json.object);

    await waitForDelivery(
      client.get,
      endpoint.id,
      (d) => d.id === delivery.id && d.state === 'delivered',
    );
    const delivered = await client.get(
      `/v1/webhook_endpoints/${endpoint.id}/deliveries?state=delivered`,
    );
    expect(delivered.body.data[0].attempts.map((a: any) => a.response_status)).toEqual([200, 200]);
    const failed = await client.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?state=failed`);
    expect(failed.body.data).toEqual([]);
  });
});
