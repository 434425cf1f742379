/** A merchant's webhooks as the end-to-end tests receive them: a receiver of the test's own. */
import { startReceiver } from '../../services/webhook/test/support/webhook-receiver';
import { api } from './http';
import type { TestMerchant } from './merchant';

/**
 * A webhook receiver started for `merchant`, and an endpoint of the merchant's (made through the
 * REST API) that sends it `events`; the endpoint URL names the merchant (`?m=`). The caller stops
 * the receiver; if the endpoint cannot be made, the receiver is stopped here.
 */
export async function subscribedReceiver(merchant: TestMerchant, events: string[]) {
  const receiver = await startReceiver();
  try {
    const endpoint = await api(merchant.api_secret).post('/v1/webhook_endpoints', {
      url: `${receiver.url}?m=${merchant.merchant_id}`,
      events,
    });
    expect(endpoint.status).toBe(200);
    return { receiver, endpointId: endpoint.body.id as string };
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}
