/**
 * Every service without an HTTP API of its own serves Prometheus metrics (OpenTelemetry,
 * pulled) on its health port. A first slice of the metrics work: HTTP request durations per
 * status, NATS RPC durations per operation, and runtime and MongoDB pool figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { api, request } from './support/http';
import { createMerchant } from './support/merchant';

const SERVICES = ['affiliate', 'tracking', 'commission', 'webhook', 'payout'];

function healthPortOf(service: string): number {
  const log = fs.readFileSync(path.join(process.env.AFF_TEST_LOG_DIR!, `${service}.log`), 'utf8');
  const port = /"healthPort":(\d+)/.exec(log)?.[1];
  if (!port) throw new Error(`no health port in ${service}.log`);
  return Number(port);
}

/** Sum of a metric's samples whose labels contain every given label. */
function sampleSum(text: string, name: string, labels: string[] = []): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((l) => line.includes(l)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe.each(SERVICES)('%s /metrics', (service) => {
  it('serves request durations per status and runtime figures in Prometheus format', async () => {
    const base = `http://127.0.0.1:${healthPortOf(service)}`;
    const before = await (await fetch(`${base}/metrics`)).text();
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);

    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const count = (body: string, status: string) =>
      sampleSum(body, 'http_server_request_duration_count', [
        `http_response_status_code="${status}"`,
      ]);
    expect(count(text, '200') - count(before, '200')).toBeGreaterThanOrEqual(3);
    expect(count(text, '404') - count(before, '404')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^# TYPE http_server_request_duration histogram$/m);
    expect(sampleSum(text, 'db_client_connection_count')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_utilization\{/m);
  });
});

it('records NATS RPC durations per operation and status', async () => {
  const merchant = await createMerchant();
  const client = api(merchant.api_secret);
  expect((await client.get('/v1/affiliates')).status).toBe(200);
  expect((await client.get('/v1/affiliates/nope')).status).toBe(404);
  const text = await (await fetch(`http://127.0.0.1:${healthPortOf('affiliate')}/metrics`)).text();
  expect(text).toMatch(/^# TYPE rpc_server_call_duration histogram$/m);
  const calls = (status: number) =>
    sampleSum(text, 'rpc_server_call_duration_count', [
      'rpc_system="nats"',
      'rpc_service="affiliate"',
      `rpc_response_status_code="${status}"`,
    ]);
  expect(calls(200)).toBeGreaterThanOrEqual(1);
  expect(calls(404)).toBeGreaterThanOrEqual(1);
});

describe('gateway', () => {
  it('serves metrics, health and readiness on its operations port only', async () => {
    const ops = process.env.GATEWAY_OPS_URL!;
    expect(new URL(ops).port).not.toBe(new URL(process.env.GATEWAY_URL!).port);
    const metrics = await fetch(`${ops}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(/^# TYPE http_server_request_duration histogram$/m);
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${ops}/readyz`)).json()).toMatchObject({
      ready: true,
      checks: { mongo: true, nats: true, redis: true },
    });
  });

  it('answers GET /metrics on the public port with the API error 404 and no metric text', async () => {
    const res = await request('GET', '/metrics');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'Not found.' });
    expect(JSON.stringify(res.body)).not.toMatch(/# TYPE|http_server_request_duration/);
  });
});
