/**
 * `npm start` keeps the program (issue 33): the real launcher runs on one AFF_LOCAL_DIR, is
 * stopped (SIGTERM) and started again, and everything is where it was left: the dev merchant
 * and its credentials, an affiliate, a due commission, a payment still `processing` at the stop
 * (completed after the restart), a webhook whose retry was scheduled before the stop (delivered
 * after it, same webhook-id), and an idempotency key (a retried POST gets its first answer).
 * `npm run ops` finds the restarted stack through AFF_LOCAL_DIR.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { api, request } from './support/http';
import { killLauncher, startLauncher, type Launcher } from './support/launcher';
import type { TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';
import { waitForDelivery } from '../services/webhook/test/support/delivery-log';
import {
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

const ROOT = path.resolve(__dirname, '..');
const ENV = {
  // 3 days of retries in 259 s: the retry after the restart comes within about as long again
  // as the restart took (slots double), while the window cannot close meanwhile.
  WEBHOOK_TIME_SCALE: '0.001',
  WEBHOOK_POLL_MS: '200',
  // A paid payout stays `processing` for 20 s, far past the stop; a restarted payout service
  // takes it over 1 s after that.
  PAYOUT_PROCESSING_DELAY_MS: '20000',
  PAYOUT_JOB_LEASE_MS: '1000',
  PAYOUT_JOB_SWEEP_MS: '500',
};

let localDir: string;
let launcher: Launcher | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  localDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-persist-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  killLauncher(launcher);
  await receiver?.stop();
  fs.rmSync(localDir, { recursive: true, force: true });
});

const credentials = () =>
  JSON.parse(fs.readFileSync(path.join(localDir, 'dev-credentials.json'), 'utf8')) as TestMerchant;

async function stop(running: Launcher): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  process.kill(running.pid, 'SIGTERM');
  await exited;
  expect(running.child.exitCode).toBe(0);
}

/** An affiliate of `campaignId` with a paying referred customer: one commission of 25 %. */
async function affiliateWithCommission(
  merchant: TestMerchant,
  baseUrl: string,
  campaignId: string,
) {
  const client = api(merchant.api_secret, baseUrl);
  const token = `p${randomUUID().slice(0, 8)}`;
  const affiliate = await client.post('/v1/affiliates', {
    first_name: 'Kept',
    last_name: 'Across',
    email: `${token}@example.com`,
    token,
    campaign_id: campaignId,
  });
  expect(affiliate.status).toBe(200);
  const visit = await request('POST', '/t/v1/visits', {
    json: { key: merchant.public_key, token },
    baseUrl,
  });
  expect(visit.status).toBe(200);
  const customerId = `cus_${randomUUID()}`;
  const processor = (type: string, object: Record<string, unknown>) =>
    sendProcessorEvent(merchant, type, object, { baseUrl });
  await processor('customer.created', {
    id: customerId,
    email: `buyer-${token}@example.com`,
    metadata: { referral: visit.body.referral.id },
  });
  await eventually(async () => {
    const r = await client.get(`/v1/referrals/${visit.body.referral.id}`);
    return r.body.processor_customer_id === customerId ? true : undefined;
  });
  await processor('charge.succeeded', {
    id: `ch_${randomUUID()}`,
    customer: customerId,
    amount: 8000,
    amount_refunded: 0,
    currency: 'usd',
  });
  const commission = await eventually(async () => {
    const list = await client.get(`/v1/commissions?affiliate_id=${affiliate.body.id}&state=due`);
    return list.body.data?.[0];
  }, 30_000);
  expect(commission).toMatchObject({ amount: 2000, state: 'due' });
  return { affiliate: affiliate.body, commission };
}

it('keeps the program across a stop and a start of npm start', async () => {
  // --- first run: a program with something in every state that must last -------------------
  launcher = await startLauncher({ localDir, env: ENV });
  const merchant = credentials();
  const first = launcher.url;
  const client = api(merchant.api_secret, first);
  const campaign = await client.post('/v1/campaigns', {
    name: 'Kept',
    days_until_commissions_are_due: '0',
    commission_percent: '25',
  });
  expect(campaign.status).toBe(200);
  const due = await affiliateWithCommission(merchant, first, campaign.body.id);
  const paid = await affiliateWithCommission(merchant, first, campaign.body.id);

  const generated = await client.post('/v1/payouts/generate', { affiliate_id: paid.affiliate.id });
  const payout = generated.body.data[0];
  expect(payout).toMatchObject({ state: 'due', amount: 2000 });
  const pay = await request('PUT', `/v1/payouts/${payout.id}/pay`, {
    secret: merchant.api_secret,
    baseUrl: first,
  });
  expect(pay.body).toMatchObject({ state: 'processing', paid_by_id: null });

  const key = randomUUID();
  const idempotent = () =>
    request('POST', '/v1/affiliates', {
      secret: merchant.api_secret,
      baseUrl: launcher!.url,
      form: { first_name: 'Once', last_name: 'Only', email: `once-${key}@example.com` },
      headers: { 'idempotency-key': key },
    });
  const once = await idempotent();
  expect(once.status).toBe(200);

  // The receiver fails until the stack is down: the delivery waits for a retry slot.
  receiver.answer = () => 500;
  const endpoint = await client.post('/v1/webhook_endpoints', {
    url: receiver.url,
    'events[]': ['affiliate.created'],
  });
  expect(endpoint.status).toBe(200);
  const hooked = await client.post('/v1/affiliates', {
    first_name: 'Web',
    last_name: 'Hook',
    email: `hook-${key}@example.com`,
  });
  const pending = await waitForDelivery(
    client.get,
    endpoint.body.id,
    (d) => d.attempts.length >= 1 && d.next_attempt_at !== null,
    30_000,
  );
  expect(pending.state).toBe('pending');

  await stop(launcher);
  const stoppedAt = Date.now();
  receiver.answer = () => 200;
  expect(fs.existsSync(path.join(localDir, 'runtime.json'))).toBe(false);

  // --- second run on the same directory ------------------------------------------------------
  launcher = await startLauncher({ localDir, env: ENV });
  expect(launcher.output()).toMatch(/Dev merchant \S+ \(kept from the last run\)/);
  expect(credentials()).toMatchObject({
    merchant_id: merchant.merchant_id,
    api_secret: merchant.api_secret,
    gateway_url: launcher.url,
  });
  const again = api(merchant.api_secret, launcher.url);

  expect((await again.get(`/v1/affiliates/${due.affiliate.id}`)).body).toMatchObject({
    id: due.affiliate.id,
    email: due.affiliate.email,
  });
  expect((await again.get(`/v1/commissions/${due.commission.id}`)).body).toMatchObject({
    id: due.commission.id,
    state: 'due',
    amount: 2000,
  });
  // The payment asked for before the stop is completed by the restarted payout service.
  const settled = await eventually(async () => {
    const res = await again.get(`/v1/payouts/${payout.id}`);
    return res.body.state === 'paid' ? res.body : undefined;
  }, 60_000);
  expect(settled.paid_at).toBe(pay.body.paid_at);

  const replay = await idempotent();
  expect(replay.body.id).toBe(once.body.id);
  const named = await again.get(
    `/v1/affiliates?email=${encodeURIComponent(`once-${key}@example.com`)}`,
  );
  expect(named.body.data).toHaveLength(1);

  const delivered = await waitForDelivery(
    again.get,
    endpoint.body.id,
    (d) => d.id === pending.id && d.state === 'delivered',
    120_000,
  );
  expect(delivered.attempts.at(-1).response_status).toBe(200);
  const requests = receiver.requests.filter((r) => r.json?.object?.id === hooked.body.id);
  // One delivery throughout: the id the failed attempts carried is the one delivered.
  expect([...new Set(requests.map((r) => r.headers['webhook-id']))]).toEqual([pending.id]);
  expect(requests.at(-1)!.receivedAt).toBeGreaterThan(stoppedAt);

  // `npm run ops` finds this stack through AFF_LOCAL_DIR (no URLs in its environment).
  const env: NodeJS.ProcessEnv = { ...process.env, AFF_LOCAL_DIR: localDir };
  for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL']) delete env[name];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.join(ROOT, 'services/gateway/dist/ops/cli.js'),
      'merchant:create',
      '--name',
      'Ops',
      '--json',
    ],
    { env },
  );
  const created = JSON.parse(stdout) as TestMerchant;
  const seen = await eventually(async () => {
    const res = await api(created.api_secret, launcher!.url).get('/v1/affiliates');
    return res.status === 200 ? res : undefined;
  });
  expect(seen.body.data).toEqual([]);

  await stop(launcher);
}, 420_000);
