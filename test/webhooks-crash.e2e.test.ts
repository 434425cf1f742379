/**
 * A webhook delivery is stored by one write after its first answer (docs/webhooks.md,
 * Durability). Killing the webhook process (SIGKILL) around that write, in an isolated system:
 * - after the request arrived, before the write: the event was not acked, so it comes back
 *   and the same webhook-id is sent again; the log shows the delivery delivered, once;
 * - after the write, before the ack: the event comes back too, finds the stored delivery and
 *   sends nothing again to that endpoint (while another endpoint of the same event, still
 *   unanswered at the kill, gets its request again).
 * The ack waits 6 s for first answers here (`WEBHOOK_FIRST_ANSWER_WAIT_MS`), so the kill lands
 * before it on a busy machine; the event comes back after the consumer's 10 s ack wait.
 */
import { receiversPerTest, webhookMerchant, webhookSystemPerFile } from './support/webhook-system';
import { waitForDelivery, waitForLog } from '../services/webhook/test/support/delivery-log';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';

const COMES_BACK_MS = 45_000;

// The first delivery warms the process up: its first request can be slow.
const sys = webhookSystemPerFile(
  'webhook_crash',
  { WEBHOOK_FIRST_ANSWER_WAIT_MS: '6000', WEBHOOK_POLL_MS: '100' },
  { warmUp: true },
);

/** A fresh merchant with one endpoint per receiver, subscribed to affiliate.created. */
async function setUp(receivers: WebhookReceiver[]) {
  const { client, addEndpoint, createAffiliate } = await webhookMerchant(
    sys.isolated.system.gatewayUrl,
    { first: 'Crash', last: 'Test' },
  );
  const endpoints = [];
  for (const receiver of receivers) endpoints.push(await addEndpoint(receiver.url));
  const created = async () => expect((await createAffiliate()).status).toBe(200);
  return { client, endpoints, createAffiliate: created };
}

async function killAndRestartWebhook(): Promise<void> {
  await sys.isolated.system.stopProcess('webhook', 'SIGKILL');
  await sys.isolated.system.startProcess('webhook');
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('a webhook process killed around the write of a first answer', () => {
  const receiver = receiversPerTest();

  it('sends the same webhook-id again when killed after the request arrived, and logs it delivered once', async () => {
    const held = await receiver();
    // The first request is held (never answered); the process dies while it waits.
    held.answer = (_req, index) => (index === 0 ? 'hang' : 200);
    const { client, endpoints, createAffiliate } = await setUp([held]);
    await createAffiliate();
    const [first] = await held.waitFor(ofType('affiliate.created'));
    // Nothing is stored before the answer.
    expect(await waitForLog(client.get, endpoints[0]!.id, () => true)).toEqual([]);
    await killAndRestartWebhook();

    const both = await held.waitFor(ofType('affiliate.created'), 2, COMES_BACK_MS);
    expect(both[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(both[1]!.json.event).toEqual(first!.json.event);
    const delivery = await waitForDelivery(
      client.get,
      endpoints[0]!.id,
      (d) => d.state === 'delivered',
    );
    expect(delivery.id).toBe(first!.headers['webhook-id']);
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ request_id: both[1]!.json.request.id, response_status: 200 }),
    ]);
    await settle();
    expect(held.requests).toHaveLength(2);
  }, 90_000);

  it('sends nothing again to an endpoint whose answer was stored before the kill', async () => {
    const answered = await receiver();
    const held = await receiver();
    held.answer = (_req, index) => (index === 0 ? 'hang' : 200);
    const { client, endpoints, createAffiliate } = await setUp([answered, held]);
    const [answeredEndpoint, heldEndpoint] = endpoints;
    await createAffiliate();
    const [stored] = await answered.waitFor(ofType('affiliate.created'));
    const [first] = await held.waitFor(ofType('affiliate.created'));
    // The answered one is written; the event is not acked yet (the held one has not answered).
    await waitForDelivery(client.get, answeredEndpoint!.id, (d) => d.state === 'delivered');
    expect(await waitForLog(client.get, heldEndpoint!.id, () => true)).toEqual([]);
    await killAndRestartWebhook();

    const again = await held.waitFor(ofType('affiliate.created'), 2, COMES_BACK_MS);
    expect(again[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await waitForDelivery(client.get, heldEndpoint!.id, (d) => d.state === 'delivered');
    await settle();
    // The event came back (the held endpoint's second request) and sent the stored one nothing.
    expect(answered.requests).toHaveLength(1);
    const log = await waitForLog(client.get, answeredEndpoint!.id, (all) => all.length === 1);
    expect(log[0]).toMatchObject({ id: stored!.headers['webhook-id'], state: 'delivered' });
    expect(log[0].attempts).toHaveLength(1);
    const heldLog = await waitForLog(client.get, heldEndpoint!.id, (all) => all.length === 1);
    expect(heldLog[0].attempts.map((a: any) => a.response_status)).toEqual([200]);
  }, 90_000);
});
