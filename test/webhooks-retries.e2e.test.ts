/**
 * Webhook retries in an isolated system whose 3-day schedule is compressed (time scale 1/20000:
 * 3 days last 13 s) and whose requests time out after 2 s: failures retry with the same
 * webhook-id, a receiver that never answers is retried, a receiver that is down and comes back
 * gets everything, a killed webhook service resumes its stored schedule, and it gives up.
 */
import { webhookMerchant, webhookSystemPerFile } from './support/webhook-system';
import { waitForDelivery, waitForLog } from '../services/webhook/test/support/delivery-log';
import {
  ofType,
  startReceiver,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

const TIME_SCALE = 0.00005;
const WINDOW_MS = 3 * 24 * 3600 * 1000 * TIME_SCALE;
/**
 * Long enough that a receiver answering at once is never timed out on a busy CI machine (500 ms
 * was, once), short enough for the hanging receiver's test.
 */
const REQUEST_TIMEOUT_MS = 2_000;

// Warmed up: the first test counts its attempts exactly, and a slow first request would add one.
const sys = webhookSystemPerFile(
  'webhook_retries',
  {
    WEBHOOK_TIME_SCALE: String(TIME_SCALE),
    WEBHOOK_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    WEBHOOK_POLL_MS: '100',
  },
  { warmUp: true },
);

/** A fresh merchant subscribed to affiliate.created at `receiver`, and a way to cause one. */
async function setUp(receiver: WebhookReceiver) {
  const { client, addEndpoint, createAffiliate } = await webhookMerchant(
    sys.isolated.system.gatewayUrl,
    { first: 'Retry', last: 'Me' },
  );
  const endpoint = await addEndpoint(receiver.url);
  return { client, endpoint, createAffiliate: async () => (await createAffiliate()).body };
}

const sameId = (requests: ReceivedRequest[]) =>
  new Set(requests.map((r) => r.headers['webhook-id']));

describe('webhook retries', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('retries a 500 with the same webhook-id and stops at the 200', async () => {
    receiver.answer = (_req, index) => (index === 0 ? 500 : 200);
    const { client, endpoint, createAffiliate } = await setUp(receiver);
    await createAffiliate();
    const requests = await receiver.waitFor(ofType('affiliate.created'), 2);
    expect(sameId(requests).size).toBe(1);
    expect(requests[1]!.json.event).toEqual(requests[0]!.json.event);
    expect(requests[1]!.json.request.id).not.toBe(requests[0]!.json.request.id);

    const delivery = await waitForDelivery(client.get, endpoint.id, (d) => d.state === 'delivered');
    expect(delivery.attempts.map((a: any) => a.response_status)).toEqual([500, 200]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests).toHaveLength(2);
  });

  it('times out a receiver that never answers, and retries', async () => {
    receiver.answer = (_req, index) => (index === 0 ? 'hang' : 200);
    const { client, endpoint, createAffiliate } = await setUp(receiver);
    await createAffiliate();
    const requests = await receiver.waitFor(ofType('affiliate.created'), 2);
    expect(sameId(requests).size).toBe(1);
    const delivery = await waitForDelivery(client.get, endpoint.id, (d) => d.state === 'delivered');
    expect(delivery.attempts[0]).toMatchObject({
      response_status: null,
      error: `Timed out after ${REQUEST_TIMEOUT_MS} ms`,
    });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 10);
    expect(delivery.attempts[1].response_status).toBe(200);
  });

  it('delivers everything to an endpoint that was down and came back', async () => {
    const { client, endpoint, createAffiliate } = await setUp(receiver);
    await receiver.stop();
    const created = [await createAffiliate(), await createAffiliate()];
    const refused = await waitForDelivery(client.get, endpoint.id, (d) => d.attempts.length >= 2);
    expect(refused.attempts[0].error).toMatch(/ECONNREFUSED/);
    await receiver.restart();
    const requests = await receiver.waitFor(ofType('affiliate.created'), 2);
    expect(requests.map((r) => r.json.object.id).sort()).toEqual(created.map((a) => a.id).sort());
    const log = await waitForLog(
      client.get,
      endpoint.id,
      (all) => all.length === 2 && all.every((d) => d.state === 'delivered'),
    );
    expect(new Set(log.map((d) => d.id))).toEqual(sameId(requests));
  });

  it('resumes pending retries after the webhook service was killed, sending each once', async () => {
    const { client, endpoint, createAffiliate } = await setUp(receiver);
    receiver.answer = () => 500;
    await createAffiliate();
    await receiver.waitFor(ofType('affiliate.created'), 2);
    await sys.isolated.system.stopProcess('webhook', 'SIGKILL');
    const before = receiver.requests.length;
    receiver.answer = () => 200;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests).toHaveLength(before);

    await sys.isolated.system.startProcess('webhook');
    const delivery = await waitForDelivery(client.get, endpoint.id, (d) => d.state === 'delivered');
    const statuses = delivery.attempts.map((a: any) => a.response_status);
    expect(statuses.filter((s: number) => s === 200)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(200);
    const all = receiver.requests.filter(ofType('affiliate.created'));
    expect(sameId(all).size).toBe(1);
    expect(all.length).toBe(before + 1);
  }, 60_000);

  it(
    'gives up after the (compressed) 3 days from the first attempt',
    async () => {
      receiver.answer = () => 503;
      const { client, endpoint, createAffiliate } = await setUp(receiver);
      await createAffiliate();
      const failed = await waitForDelivery(
        client.get,
        endpoint.id,
        (d) => d.state === 'failed',
        WINDOW_MS + 15_000,
      );
      expect(failed.next_attempt_at).toBeNull();
      expect(failed.attempts.length).toBeGreaterThanOrEqual(6);
      expect(failed.attempts.every((a: any) => a.response_status === 503)).toBe(true);
      const times = failed.attempts.map((a: any) => Date.parse(a.attempted_at));
      const waits = times.slice(1).map((t: number, i: number) => t - times[i]!);
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(WINDOW_MS - 50);
      // Waits grow: the last ones are far longer than the first ones.
      expect(waits.at(-1)!).toBeGreaterThan(waits[0]! * 4);
      const requests = receiver.requests.filter(ofType('affiliate.created'));
      expect(requests).toHaveLength(failed.attempts.length);
      expect(sameId(requests).size).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.requests).toHaveLength(requests.length);
    },
    WINDOW_MS + 40_000,
  );
});
