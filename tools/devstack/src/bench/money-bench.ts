/**
 * The public visit intake benchmark and the helpers the money-flow benchmarks share
 * (signed processor events, JSON calls through the gateway).
 */
import { createHmac, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { Measurement } from './measure';
import { settleCpu } from './settle';
import type { VisitDrainProbe } from './visit-drain';
import type { WriteAccount, WriteMeter } from './write-stats';

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

export interface VisitBenchOptions {
  /** Measured figure's name. */
  name: string;
  window?: MeasuredWindow;
  /** Waits, after the load, until the accepted visits' other effects are done (webhooks). */
  alsoWaitFor?: (acceptedSinceStart: number) => Promise<void>;
  /** Documents written per accepted visit, counted once the fan-out has settled. */
  writes?: WriteMeter;
}

/**
 * Visits per second that were accepted (2xx) AND written and published: the clock starts with
 * the load and stops when the write-behind has caught up (visit-drain.ts), not at the last
 * answer. Non-2xx answers and errors are counted but not as visits.
 */
export async function benchVisits(
  gatewayUrl: string,
  merchant: Pick<BenchMerchant, 'public_key'>,
  token: string,
  load: Load,
  probe: VisitDrainProbe,
  opts: VisitBenchOptions,
): Promise<Measurement & { drainSeconds: number; loadSeconds: number; writes?: WriteAccount }> {
  const visit = {
    url: `${gatewayUrl}/t/v1/visits`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: merchant.public_key, token }),
    connections: load.connections,
  };
  // Warm-up (JIT, pools, the link in memory), written and published before the clock starts.
  const beforeWarmup = await probe.counts();
  const warmup = await autocannon({ ...visit, duration: 2 });
  await probe.waitForDrain(beforeWarmup, warmup['2xx']);
  await opts.alsoWaitFor?.(warmup['2xx']);
  const writeWindow = await opts.writes?.start();
  const from = await probe.counts();
  const measured = opts.window?.();
  const started = Date.now();
  const result = await autocannon({ ...visit, duration: load.durationSeconds });
  const loadSeconds = (Date.now() - started) / 1000;
  const accepted = result['2xx'];
  await probe.waitForDrain(from, accepted);
  await opts.alsoWaitFor?.(warmup['2xx'] + accepted);
  const seconds = (Date.now() - started) / 1000;
  measured?.end(accepted);
  // The counters and webhooks each referral feeds write after it; they count as its writes.
  await settleCpu({ timeoutMs: 20_000 });
  const writes = await writeWindow?.end(accepted);
  return {
    name: opts.name,
    requestsPerSecond: accepted / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    drainSeconds: seconds - loadSeconds,
    loadSeconds,
    writes,
  };
}
