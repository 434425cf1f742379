/**
 * After a journey, each metric family the platform promises is on some process's /metrics with
 * real values: consumer lag and redeliveries, outbox backlog, webhook outcomes and failing
 * endpoints, rate-limit rejections per tier, commission and payout state changes, and HTTP
 * durations per route on the gateway.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { api, request } from './support/http';
import { charge, createAffiliate, referredCustomer, waitForCommissions } from './support/journey';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

type Sample = { name: string; labels: Record<string, string>; value: number };

function healthUrl(name: string): string {
  if (name === 'gateway') return process.env.GATEWAY_OPS_URL!;
  const log = fs.readFileSync(path.join(process.env.AFF_TEST_LOG_DIR!, `${name}.log`), 'utf8');
  const port = /"healthPort":(\d+)/.exec(log)?.[1];
  if (!port) throw new Error(`no health port in ${name}.log`);
  return `http://127.0.0.1:${port}`;
}

async function scrape(name: string): Promise<Sample[]> {
  const res = await fetch(`${healthUrl(name)}/metrics`);
  expect(res.status).toBe(200);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const matching = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matching.length === 0) {
    const seen = samples.filter((s) => s.name === name).map((s) => JSON.stringify(s.labels));
    throw new Error(`no ${name} ${JSON.stringify(labels)}; seen: ${seen.slice(0, 20).join(' ')}`);
  }
  return matching.reduce((sum, s) => sum + s.value, 0);
}

/**
 * A gauge that may rightly be zero after the journey (a lag, a backlog): the series is there
 * (`total` throws otherwise) and holds a count, not NaN, a fraction or a negative number.
 */
function expectCount(value: number): void {
  expect({ value, count: Number.isSafeInteger(value) && value >= 0 }).toEqual({
    value,
    count: true,
  });
}

describe('metrics', () => {
  let good: WebhookReceiver;
  let bad: WebhookReceiver;
  beforeAll(async () => {
    good = await startReceiver();
    bad = await startReceiver();
    bad.answer = () => 500;
  });
  afterAll(async () => {
    await good?.stop();
    await bad?.stop();
  });

  it('shows every family with real values after a journey', async () => {
    // A rate-limited merchant (tier "2") gets a 429.
    const small = await createMerchant({ rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await api(small.api_secret).get('/v1/campaigns')).status);
    expect(statuses).toContain(429);

    // The money journey, with one endpoint that answers 200 and one that keeps failing.
    const merchant = await createMerchant({ rateLimit: 5000 });
    const client = api(merchant.api_secret);
    await client.post('/v1/webhook_endpoints', { url: good.url });
    await client.post('/v1/webhook_endpoints', { url: bad.url });
    const campaign = (
      await client.post('/v1/campaigns', {
        name: `Metrics ${randomUUID()}`,
        url: 'https://shop.example.com/',
        commission_percent: '10',
        days_until_commissions_are_due: '0',
        minimum_payout_cents: '100',
      })
    ).body;
    const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id });
    const { customerId } = await referredCustomer(merchant, affiliate);
    await charge(merchant, customerId, { amount: 5000 });
    await waitForCommissions(merchant, affiliate.id, (l) => l[0]?.state === 'due');
    const payout = await eventually(async () => {
      const run = await client.postJson('/v1/payouts/generate', { affiliate_id: affiliate.id });
      return run.body.data?.[0];
    });
    expect(
      (await request('PUT', `/v1/payouts/${payout.id}/pay`, { secret: merchant.api_secret }))
        .status,
    ).toBe(200);
    await eventually(async () => {
      const res = await client.get(`/v1/payouts/${payout.id}`);
      return res.body.state === 'paid' ? true : undefined;
    }, 30_000);
    await good.waitFor((r) => r.json?.event?.type === 'payout.paid');
    await bad.waitFor(() => true);

    const gateway = await scrape('gateway');
    expect(
      total(gateway, 'http_server_request_duration_count', {
        http_route: '/v1/payouts/:id/pay',
        http_response_status_code: '200',
      }),
    ).toBeGreaterThan(0);
    expect(
      total(gateway, 'gateway_rate_limit_rejections_total', { merchant_tier: '2' }),
    ).toBeGreaterThan(0);

    const affiliateSvc = await scrape('affiliate');
    expect(
      total(affiliateSvc, 'rpc_server_call_duration_count', {
        rpc_service: 'affiliate',
        rpc_method: 'createAffiliate',
      }),
    ).toBeGreaterThan(0);
    const consumer = { messaging_consumer_group_name: 'affiliate-referral-counts' };
    expectCount(total(affiliateSvc, 'messaging_consumer_lag', consumer));
    expectCount(total(affiliateSvc, 'messaging_consumer_redelivered', consumer));
    expectCount(total(affiliateSvc, 'outbox_backlog'));

    // Tracking's visit intake backlog is reported like any durable's lag (`total` throws
    // when the series is missing).
    const trackingSvc = await scrape('tracking');
    const intake = {
      messaging_destination_name: 'TRACKING_INTAKE',
      messaging_consumer_group_name: 'tracking-intake',
    };
    expectCount(total(trackingSvc, 'messaging_consumer_lag', intake));

    const commission = await scrape('commission');
    expect(
      total(commission, 'affiliate_commission_state_changes_total', {
        event_type: 'commission.created',
      }),
    ).toBeGreaterThan(0);
    const payoutSvc = await scrape('payout');
    expect(
      total(payoutSvc, 'affiliate_payout_state_changes_total', { event_type: 'payout.paid' }),
    ).toBeGreaterThan(0);

    const webhook = await eventually(async () => {
      const samples = await scrape('webhook');
      return total(samples, 'webhook_endpoints_failing') > 0 ? samples : undefined;
    });
    expect(total(webhook, 'webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThan(0);
    expect(total(webhook, 'webhook_deliveries_total', { outcome: 'retrying' })).toBeGreaterThan(0);
  }, 120_000);
});
