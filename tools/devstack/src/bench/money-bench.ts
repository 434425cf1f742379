/**
 * The public visit intake benchmark and the helpers the money-flow benchmarks share
 * (signed processor events, JSON calls through the gateway).
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

export async function call(
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

export async function sendProcessor(
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

/** Opens a window around the measured run (not the warm-up); closed with the requests made. */
export type MeasuredWindow = () => { end(events: number): unknown };

export async function benchVisits(
  gatewayUrl: string,
  merchant: Pick<BenchMerchant, 'public_key'>,
  token: string,
  load: Load,
  window?: MeasuredWindow,
): Promise<Measurement> {
  const visit = {
    url: `${gatewayUrl}/t/v1/visits`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: merchant.public_key, token }),
    connections: load.connections,
  };
  await autocannon({ ...visit, duration: 2 }); // warm-up: JIT, pools, the link in memory
  const measured = window?.();
  const result = await autocannon({
    url: `${gatewayUrl}/t/v1/visits`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: merchant.public_key, token }),
    connections: load.connections,
    duration: load.durationSeconds,
  });
  measured?.end(result.requests.total);
  return {
    name: 'POST /t/v1/visits (new referral each)',
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
