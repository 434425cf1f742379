/**
 * Benchmarks of the money flow's entry points, on the system `run-bench` started:
 * the public visit intake, and the processor path from a signed `charge.succeeded` to a
 * commission readable through the REST API.
 */
import { createHmac, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { Measurement } from './measure';

export interface BenchMerchant {
  merchant_id: string;
  api_secret: string;
  public_key: string;
  processor_signing_secret: string;
}

interface Load {
  connections: number;
  durationSeconds: number;
}

async function call(
  gatewayUrl: string,
  path: string,
  init: RequestInit = {},
  secret?: string,
  // Bench glue reads a few known fields of the gateway's JSON answers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(init.headers as Record<string, string>),
  };
  if (secret) headers.authorization = `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
  const res = await fetch(`${gatewayUrl}${path}`, { ...init, headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

function signedBody(merchant: BenchMerchant, type: string, object: Record<string, unknown>) {
  const body = JSON.stringify({
    id: `evt_${randomUUID()}`,
    type,
    created: Math.floor(Date.now() / 1000),
    account: 'acct_bench',
    data: { object },
  });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', merchant.processor_signing_secret)
    .update(`${t}.${body}`)
    .digest('hex');
  return {
    body,
    headers: { 'content-type': 'application/json', 'processor-signature': `t=${t},v1=${v1}` },
  };
}

async function sendProcessor(
  gatewayUrl: string,
  merchant: BenchMerchant,
  type: string,
  object: Record<string, unknown>,
) {
  const { body, headers } = signedBody(merchant, type, object);
  return call(gatewayUrl, `/hooks/processor/${merchant.public_key}`, {
    method: 'POST',
    body,
    headers,
  });
}

async function commissionCount(
  gatewayUrl: string,
  merchant: BenchMerchant,
  affiliateId: string,
): Promise<number> {
  const list = await call(
    gatewayUrl,
    `/v1/commissions?affiliate_id=${affiliateId}&limit=1`,
    {},
    merchant.api_secret,
  );
  return list.pagination.total_count as number;
}

export async function prepareAffiliate(gatewayUrl: string, merchant: BenchMerchant) {
  return call(
    gatewayUrl,
    '/v1/affiliates',
    {
      method: 'POST',
      body: JSON.stringify({
        first_name: 'Bench',
        last_name: 'Money',
        email: `money-${randomUUID()}@example.com`,
      }),
    },
    merchant.api_secret,
  );
}

export async function benchVisits(
  gatewayUrl: string,
  merchant: BenchMerchant,
  token: string,
  load: Load,
): Promise<Measurement> {
  const result = await autocannon({
    url: `${gatewayUrl}/t/v1/visits`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: merchant.public_key, token }),
    connections: load.connections,
    duration: load.durationSeconds,
  });
  return {
    name: 'POST /t/v1/visits (new referral each)',
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export interface ProcessorFigures {
  intake: Measurement;
  stored: number;
  pipelineSeconds: number;
  commissionsPerSecond: number;
  e2eP50Ms: number;
  e2eP99Ms: number;
  e2eSamples: number;
}

/** Attributed charges through the hook; then how fast they became commissions, and e2e latency one by one. */
export async function benchProcessorPath(
  gatewayUrl: string,
  merchant: BenchMerchant,
  load: Load,
  samples = 30,
): Promise<ProcessorFigures> {
  const affiliate = await prepareAffiliate(gatewayUrl, merchant);
  const visit = await call(gatewayUrl, '/t/v1/visits', {
    method: 'POST',
    body: JSON.stringify({ key: merchant.public_key, token: affiliate.links[0].token }),
  });
  const customer = `cus_${randomUUID()}`;
  await sendProcessor(gatewayUrl, merchant, 'customer.created', {
    id: customer,
    email: 'buyer@example.com',
    name: 'B',
    metadata: { referral: visit.referral.id },
  });

  const started = Date.now();
  let sent = 0;
  const result = await autocannon({
    url: `${gatewayUrl}/hooks/processor/${merchant.public_key}`,
    method: 'POST',
    connections: load.connections,
    // A fixed number of charges, so the pipeline measurement ends in bounded time.
    amount: 200,
    requests: [
      {
        setupRequest: (req) => {
          sent++;
          const signed = signedBody(merchant, 'charge.succeeded', {
            id: `ch_${randomUUID()}`,
            customer,
            amount: 10_000,
            currency: 'usd',
            tax: 0,
            amount_refunded: 0,
          });
          return { ...req, method: 'POST', body: signed.body, headers: signed.headers };
        },
      },
    ],
  });
  const accepted = result['2xx'];
  for (;;) {
    const count = await commissionCount(gatewayUrl, merchant, affiliate.id);
    if (count >= accepted || Date.now() - started > 600_000) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const pipelineSeconds = (Date.now() - started) / 1000;
  void sent;

  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const before = await commissionCount(gatewayUrl, merchant, affiliate.id);
    const t0 = Date.now();
    await sendProcessor(gatewayUrl, merchant, 'charge.succeeded', {
      id: `ch_${randomUUID()}`,
      customer,
      amount: 10_000,
      currency: 'usd',
      tax: 0,
      amount_refunded: 0,
    });
    while ((await commissionCount(gatewayUrl, merchant, affiliate.id)) <= before)
      await new Promise((r) => setTimeout(r, 5));
    latencies.push(Date.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const pick = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    intake: {
      name: 'POST /hooks/processor (charge.succeeded)',
      requestsPerSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    },
    stored: accepted,
    pipelineSeconds,
    commissionsPerSecond: accepted / pipelineSeconds,
    e2eP50Ms: pick(0.5),
    e2eP99Ms: pick(0.99),
    e2eSamples: latencies.length,
  };
}
