/**
 * Measures the design's visit path stripped to its mandated hops (skeleton-gateway.ts and
 * skeleton-service.ts, two processes like the gateway and tracking) under the same load as the
 * visits, on the same servers.
 */
import autocannon from 'autocannon';
import { startBaseline } from './bench-targets';
import type { Measurement } from './measure';

export async function benchVisitSkeleton(
  infra: { natsUrl: string; mongoUrl: string; redisUrl: string },
  load: { connections: number; durationSeconds: number },
): Promise<Measurement> {
  const service = await startBaseline('skeleton-service', [infra.natsUrl, infra.mongoUrl]);
  const gateway = await startBaseline('skeleton-gateway', [infra.natsUrl, infra.redisUrl]);
  try {
    const visit = {
      url: `${gateway.url}/t/v1/visits`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'pk_bench', token: 'bench' }),
      connections: load.connections,
    };
    await autocannon({ ...visit, duration: 2 }); // warm-up, as the visits have
    const result = await autocannon({ ...visit, duration: load.durationSeconds });
    return {
      name: 'visit skeleton: node:http + Redis limit + NATS request + one insert',
      requestsPerSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  } finally {
    gateway.stop();
    service.stop();
  }
}
