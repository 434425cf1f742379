/**
 * `/healthz` (the process is alive), `/readyz` (its dependencies answer) and `/metrics`
 * (Prometheus): the health port of each service, and the gateway's operations port (`OPS_PORT`),
 * so operational data never shares a port with the public API. Port 0 picks a free port; a
 * negative port disables it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsHandler } from '@aff/telemetry';

export type ReadinessCheck = () => Promise<boolean> | boolean;

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  port: number,
  checks: Record<string, ReadinessCheck>,
  /** Reported by /readyz but not required (the gateway's Redis). */
  optional: Record<string, ReadinessCheck> = {},
): Promise<HealthServer | undefined> {
  if (port < 0) return undefined;
  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') return send(res, 200, { status: 'ok' });
    // Prometheus scrapes here (OpenTelemetry metrics in text format).
    const metrics = req.url === '/metrics' ? metricsHandler() : undefined;
    if (metrics) return metrics(req, res);
    if (req.url === '/readyz') {
      void runChecks(checks, optional).then((result) =>
        send(res, result.ready ? 200 : 503, result),
      );
      return;
    }
    send(res, 404, { error: 'Not found.' });
  });
  await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Runs every check; only `required` ones decide readiness. `optional` ones are reported, for
 * dependencies the process can work without (the gateway's Redis has an in-process fallback).
 */
export async function runChecks(
  required: Record<string, ReadinessCheck>,
  optional: Record<string, ReadinessCheck> = {},
): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
  const results: Record<string, boolean> = {};
  let ready = true;
  for (const [name, check] of [...Object.entries(required), ...Object.entries(optional)]) {
    results[name] = await Promise.resolve()
      .then(check)
      .catch(() => false);
    if (!results[name] && name in required) ready = false;
  }
  return { ready, checks: results };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
