/**
 * Two processes of every service in one system: they share RPCs through queue groups and event
 * work through durable consumers. A whole journey (affiliate, visit, customer, charge,
 * commission, payout generated and paid) across them has every effect exactly once: one
 * referral, one commission, one payout paid once, one webhook event per fact, each delivered
 * once.
 */
import { api, request } from './support/http';
import { createAffiliate, dueCommissionOf, generatedPayout } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import {
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

describe('two replicas of every service', () => {
  let isolated: IsolatedSystem;
  let receiver: WebhookReceiver;
  let merchant: TestMerchant;
  const sharedGateway = process.env.GATEWAY_URL;

  beforeAll(async () => {
    isolated = await startIsolatedSystem({
      env: { LOG_LEVEL: 'warn' },
      replicas: { affiliate: 2, tracking: 2, commission: 2, webhook: 2, payout: 2, web: 2 },
    });
    // The journey helpers talk to GATEWAY_URL: point them at this system's gateway.
    process.env.GATEWAY_URL = isolated.system.gatewayUrl;
    merchant = await createMerchant({ rateLimit: 5000 });
    receiver = await startReceiver();
  }, 180_000);

  afterAll(async () => {
    process.env.GATEWAY_URL = sharedGateway;
    await receiver?.stop();
    await isolated?.stop();
  });

  it('runs as thirteen processes: two per service and the gateway', () => {
    expect(isolated.system.pids()).toHaveLength(13);
  });

  it('has every effect of a journey exactly once', async () => {
    const client = api(merchant.api_secret);
    expect((await client.postJson('/v1/webhook_endpoints', { url: receiver.url })).status).toBe(
      200,
    );
    const campaign = await client.post('/v1/campaigns', {
      name: 'Pays at once',
      commission_percent: '10',
      days_until_commissions_are_due: '0',
    });
    expect(campaign.status).toBe(200);
    const affiliate = await createAffiliate(merchant, { campaign_id: campaign.body.id });
    const { commission } = await dueCommissionOf(merchant, affiliate, 10_000);

    const payout = await generatedPayout(merchant, affiliate.id);
    expect(payout).toMatchObject({ amount: 1000, state: 'due' });
    const paid = await request('PUT', `/v1/payouts/${payout.id}/pay`, {
      secret: merchant.api_secret,
    });
    expect(paid.status).toBe(200);
    await eventually(async () => {
      const res = await client.get(`/v1/commissions/${commission.id}`);
      return res.body.state === 'paid' ? true : undefined;
    });

    // Every fact once, each announced by one event, each event delivered once.
    const once = [
      'affiliate.created',
      'referral.created',
      'referral.lead',
      'referral.converted',
      'sale.created',
      'commission.created',
      'commission.paid',
      'payout.paid',
    ];
    const typesSeen = () => new Set(receiver.requests.map((r) => r.json?.event?.type as string));
    await eventually(
      async () => (once.every((type) => typesSeen().has(type)) ? true : undefined),
      60_000,
    );
    // Late duplicates would arrive after the first copies; give them a moment to show up.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const referrals = await client.get('/v1/referrals');
    expect(referrals.body.data).toHaveLength(1);
    const commissions = await client.get(`/v1/commissions?affiliate_id=${affiliate.id}`);
    expect(commissions.body.data).toHaveLength(1);
    expect(commissions.body.data[0]).toMatchObject({ state: 'paid', amount: 1000 });
    const payouts = await client.get(`/v1/payouts?affiliate_id=${affiliate.id}`);
    expect(payouts.body.data).toHaveLength(1);
    expect(payouts.body.data[0]).toMatchObject({ id: payout.id, state: 'paid' });

    const requestsPerEvent = new Map<string, number>();
    const eventsPerFact = new Map<string, Set<string>>();
    for (const r of receiver.requests) {
      const { event, object } = r.json as { event: { id: string; type: string }; object: any };
      requestsPerEvent.set(event.id, (requestsPerEvent.get(event.id) ?? 0) + 1);
      const fact = `${event.type} ${object.id}`;
      eventsPerFact.set(fact, (eventsPerFact.get(fact) ?? new Set()).add(event.id));
    }
    expect([...requestsPerEvent].filter(([, n]) => n !== 1)).toEqual([]);
    expect([...eventsPerFact].filter(([, ids]) => ids.size !== 1).map(([fact]) => fact)).toEqual(
      [],
    );
    const countOf = (type: string) =>
      receiver.requests.filter((r) => r.json.event.type === type).length;
    expect(Object.fromEntries(once.map((type) => [type, countOf(type)]))).toEqual(
      Object.fromEntries(once.map((type) => [type, 1])),
    );
  }, 240_000);
});
