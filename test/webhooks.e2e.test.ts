/**
 * Webhooks through the real gateway and the whole system: endpoints, signed deliveries of the
 * spec's payload to a real receiver, event filters, tenant isolation, the log and redelivery.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  InvalidRequestError,
  NotFoundError,
  type Client,
  type OperationInput,
  type OperationOutput,
} from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { findEvents } from './support/events';
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
const uniqueEmail = () => `hook${Date.now()}${++seq}@example.com`;

function newAffiliate(client: Client) {
  return client.affiliates.create({ first_name: 'Jane', last_name: 'Doe', email: uniqueEmail() });
}

type Delivery = OperationOutput<'redeliverWebhookDelivery'>;

/** The first delivery in the endpoint's log (first 100, newest first) for which `until` holds. */
function waitForDelivery(
  client: Client,
  endpointId: string,
  until: (delivery: Delivery) => boolean,
): Promise<Delivery> {
  return eventually(async () => {
    const log = await client.webhookEndpoints.listDeliveries({ id: endpointId, limit: 100 });
    return log.data.find(until);
  });
}

describe('webhook endpoints', () => {
  let merchant: TestMerchant;
  let client: Client;
  beforeAll(async () => {
    merchant = await createMerchant();
    client = merchantClient(merchant.api_secret);
  });

  it('are created with every event by default and answer the signing secret only once', async () => {
    // Resolving means 200: the client's fetch rejects any status the OpenAPI document does not list.
    const created = await client.webhookEndpoints.create({ url: 'https://example.com/a' });
    expect(created).toEqual({
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
    const { secret, ...shown } = created;
    const fetched = await client.webhookEndpoints.get({ id: created.id });
    expect(fetched).toMatchObject(shown);
    expect(fetched).not.toHaveProperty('secret');
    expect(JSON.stringify(fetched)).not.toContain(secret);
  });

  it('take events as a form list or a JSON array', async () => {
    // Raw helper: the form encoding (`events[]` repeated) is what this test is about; the client
    // sends JSON only.
    const form = await api(merchant.api_secret).post('/v1/webhook_endpoints', {
      url: 'https://example.com/b',
      'events[]': ['affiliate.created', 'payout.paid'],
    });
    expect(form.status).toBe(200);
    expect(form.body.events).toEqual(['affiliate.created', 'payout.paid']);
    const json = await client.webhookEndpoints.create({
      url: 'https://example.com/c',
      events: ['commission.created'],
    });
    expect(json.events).toEqual(['commission.created']);
  });

  it('are listed newest first in the spec pagination envelope', async () => {
    const own = await createMerchant();
    const ownClient = merchantClient(own.api_secret);
    for (const n of [1, 2, 3]) {
      await ownClient.webhookEndpoints.create({ url: `https://example.com/${n}` });
    }
    const page = await ownClient.webhookEndpoints.list({ limit: 2 });
    expect(page.pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: 2,
      count: 2,
      limit: 2,
      total_pages: 2,
      total_count: 3,
    });
    expect(page.data.map((e) => e.url)).toEqual(['https://example.com/3', 'https://example.com/2']);
    expect(page.data[0]).not.toHaveProperty('secret');
    // The iterator follows next_page to the last one.
    const all: string[] = [];
    for await (const endpoint of ownClient.webhookEndpoints.listAll({ limit: 2 })) {
      all.push(endpoint.url);
    }
    expect(all).toEqual([
      'https://example.com/3',
      'https://example.com/2',
      'https://example.com/1',
    ]);
  });

  it('reject a URL that is not absolute http(s), and unknown event types, with details', async () => {
    // An event type the types do not know, as untyped code may send it.
    const res = await rejection(
      client.webhookEndpoints.create({
        url: 'example.com/hook',
        events: ['affiliate.created', 'affiliate.exploded'],
      } as unknown as OperationInput<'createWebhookEndpoint'>),
    );
    expect(res).toBeInstanceOf(InvalidRequestError);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Could not create webhook endpoint.',
      details: [
        'Url must be an absolute http(s) URL',
        'Events contains an unknown event type: affiliate.exploded',
      ],
    });
    const blank = await rejection(
      client.webhookEndpoints.create({} as OperationInput<'createWebhookEndpoint'>),
    );
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({
      error: 'Could not create webhook endpoint.',
      details: ["Url can't be blank"],
    });
  });

  it('are updated with PUT or PATCH, and deleted', async () => {
    const created = await client.webhookEndpoints.create({ url: 'https://example.com/u' });
    const id = created.id;
    const put = await client.webhookEndpoints.update({
      id,
      url: 'https://example.com/v',
      events: ['payout.paid'],
      enabled: false,
    });
    expect(put).toMatchObject({
      id,
      url: 'https://example.com/v',
      events: ['payout.paid'],
      enabled: false,
    });
    // Raw helper: PATCH is an alias route of update; the client always sends PUT.
    const patch = await request('PATCH', `/v1/webhook_endpoints/${id}`, {
      secret: merchant.api_secret,
      json: { enabled: true },
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ url: 'https://example.com/v', enabled: true });
    const invalid = await rejection(client.webhookEndpoints.update({ id, url: 'ftp://x' }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({
      error: 'Could not update webhook endpoint.',
      details: ['Url must be an absolute http(s) URL'],
    });

    const deleted = await client.webhookEndpoints.delete({ id });
    expect(deleted).toEqual({ id, deleted: true });
    const gone = await rejection(client.webhookEndpoints.get({ id }));
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({
      status: 404,
      body: { error: `Webhook endpoint not found: ${id}` },
    });
  });

  it('answer 404 for unknown or malformed ids, and for another merchant’s endpoint', async () => {
    const id = randomUUID();
    for (const call of [
      () => client.webhookEndpoints.get({ id }),
      () => client.webhookEndpoints.listDeliveries({ id }),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.body).toEqual({ error: `Webhook endpoint not found: ${id}` });
    }
    expect((await rejection(client.webhookEndpoints.get({ id: 'nope' }))).status).toBe(404);
    const mine = await client.webhookEndpoints.create({ url: 'https://example.com/m' });
    const other = merchantClient((await createMerchant()).api_secret);
    expect((await rejection(other.webhookEndpoints.get({ id: mine.id }))).status).toBe(404);
    const redeliver = await rejection(other.webhookDeliveries.redeliver({ id }));
    expect(redeliver).toBeInstanceOf(NotFoundError);
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

  async function subscribe(
    events?: OperationInput<'createWebhookEndpoint'>['events'],
    url = receiver.url,
  ) {
    const merchant = await createMerchant({ rateLimit: 1000 });
    const client = merchantClient(merchant.api_secret);
    const endpoint = await client.webhookEndpoints.create({
      url: `${url}?m=${merchant.merchant_id}`,
      ...(events ? { events } : {}),
    });
    return { merchant, client, endpoint };
  }
  const forMerchant = (merchantId: string) => (r: { path: string }) =>
    r.path.endsWith(`?m=${merchantId}`);

  it('sends a signed affiliate.created with the spec payload after POST /v1/affiliates', async () => {
    const { merchant, client, endpoint } = await subscribe();
    const affiliate = await newAffiliate(client);
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
    expect(new Webhook(endpoint.secret!).verify(req.body, req.headers)).toEqual(req.json);

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
      links: affiliate.links!.map((link) => ({ ...link, referrals: 0 })),
    });
    expect(req.json.object.campaign).toEqual(affiliate.campaign);
  });

  // Trace context exists only with telemetry on (the default; OTEL_SDK_DISABLED=true turns it off).
  const whenTraced = process.env.OTEL_SDK_DISABLED === 'true' ? it.skip : it;
  whenTraced('sends the request in the trace of the call that caused the event', async () => {
    const { merchant, client } = await subscribe(['affiliate.created']);
    const affiliate = await newAffiliate(client);
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
    const campaign = await client.campaigns.create({ name: 'Spring' });
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
    const created = await newAffiliate(a.client);
    await receiver.waitFor((r) => r.json?.object?.id === created.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sentTo = receiver.requests.filter((r) => r.json?.object?.id === created.id);
    expect(sentTo.map((r) => r.path)).toEqual([`/hooks?m=${a.merchant.merchant_id}`]);
    expect(receiver.requests.filter(forMerchant(b.merchant.merchant_id))).toEqual([]);
  });

  it('sends nothing to a disabled endpoint', async () => {
    const { merchant, client, endpoint } = await subscribe(['affiliate.created']);
    await client.webhookEndpoints.update({ id: endpoint.id, enabled: false });
    await newAffiliate(client);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests.filter(forMerchant(merchant.merchant_id))).toEqual([]);
    const log = await client.webhookEndpoints.listDeliveries({ id: endpoint.id });
    expect(log.data).toEqual([]);
  });

  it('logs each delivery with its attempts, and redelivers with the same webhook-id', async () => {
    const { merchant, client, endpoint } = await subscribe(['affiliate.created']);
    const affiliate = await newAffiliate(client);
    const mine = (r: any) =>
      forMerchant(merchant.merchant_id)(r) && r.json.object.id === affiliate.id;
    const [first] = await receiver.waitFor(mine);

    // The receiver has answered; the outcome is stored right after.
    await waitForDelivery(client, endpoint.id, (d) => d.state === 'delivered');
    const log = await client.webhookEndpoints.listDeliveries({ id: endpoint.id });
    expect(log.pagination).toMatchObject({ count: 1, total_count: 1, current_page: 1 });
    const delivery = log.data[0]!;
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

    const again = await client.webhookDeliveries.redeliver({ id: delivery.id });
    expect(again).toMatchObject({ id: delivery.id, state: 'pending' });
    const both = await receiver.waitFor(mine, 2);
    expect(both[1]!.headers['webhook-id']).toBe(delivery.id);
    expect(both[1]!.json.event).toEqual(first!.json.event);
    expect(both[1]!.json.request.id).not.toBe(first!.json.request.id);
    expect(both[1]!.json.object).toEqual(first!.json.object);

    await waitForDelivery(
      client,
      endpoint.id,
      (d) => d.id === delivery.id && d.state === 'delivered',
    );
    const delivered = await client.webhookEndpoints.listDeliveries({
      id: endpoint.id,
      state: 'delivered',
    });
    expect(delivered.data[0]!.attempts.map((a) => a.response_status)).toEqual([200, 200]);
    const failed = await client.webhookEndpoints.listDeliveries({
      id: endpoint.id,
      state: 'failed',
    });
    expect(failed.data).toEqual([]);
  });
});
