/**
 * `GET /v1/affiliates?limit=25` through the gateway against two one-process baselines (a bare
 * node:http server answering fixed JSON, and one process running the same query).
 */
import { startBaseline } from './bench-targets';
import type { CountedProcess } from './cpu-account';
import { measure, type Measurement } from './measure';
import type { BenchMerchant } from './money-bench';

export async function benchAffiliateList(
  _root: string,
  mongoUrl: string,
  gatewayUrl: string,
  merchant: BenchMerchant,
  load: { connections: number; durationSeconds: number },
  /** CPU windows: the gateway's path (the system's processes) and the one-process baseline. */
  windows: {
    gateway?: () => { end(events: number): unknown };
    oneProcess?: (processes: CountedProcess[]) => () => { end(events: number): unknown };
  } = {},
) {
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  await seedAffiliates(gatewayUrl, auth, 60);
  const fixed = await startBaseline('fixed-json-server');
  const monolith = await startBaseline('monolith-server', [mongoUrl, merchant.merchant_id]);
  const rows: Measurement[] = [];
  rows.push(
    await measure('GET /v1/affiliates?limit=25 (gateway)', {
      ...load,
      url: `${gatewayUrl}/v1/affiliates?limit=25`,
      headers: { authorization: auth },
      window: windows.gateway,
    }),
  );
  rows.push(await measure('(a) bare node:http, fixed JSON', { ...load, url: `${fixed.url}/` }));
  rows.push(
    await measure('(b) one-process node:http + same query', {
      ...load,
      url: `${monolith.url}/`,
      window: windows.oneProcess?.([{ name: 'one process', pid: monolith.pid }]),
    }),
  );
  return {
    rows,
    gateway: rows[0]!,
    monolith: rows[2]!,
    stops: [fixed.stop, monolith.stop],
  };
}

async function seedAffiliates(gatewayUrl: string, auth: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${gatewayUrl}/v1/affiliates`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        first_name: `Bench${i}`,
        last_name: 'Affiliate',
        email: `bench${i}@example.com`,
      }),
    });
    if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
}
