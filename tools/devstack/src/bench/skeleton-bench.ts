/**
 * Measures the design's visit path stripped to its mandated hops (skeleton-gateway.ts and
 * skeleton-service.ts, two processes like the gateway and tracking) with the visits' own load
 * (money-bench.ts), on the same servers.
 */
import { startBaseline } from './bench-targets';
import type { CountedProcess } from './cpu-account';
import { measure, type Measurement } from './measure';

export async function benchVisitSkeleton(
  infra: { natsUrl: string; mongoUrl: string; redisUrl: string },
  load: { connections: number; durationSeconds: number },
  /** Around the measured run, on the skeleton's two processes (and the servers). */
  window?: (processes: CountedProcess[]) => () => { end(events: number): unknown },
): Promise<Measurement> {
  const service = await startBaseline('skeleton-service', [infra.natsUrl, infra.mongoUrl]);
  const gateway = await startBaseline('skeleton-gateway', [infra.natsUrl, infra.redisUrl]);
  const processes = [
    { name: 'skeleton gateway', pid: gateway.pid },
    { name: 'skeleton service', pid: service.pid },
  ];
  try {
    // Its answer comes after its insert: nothing is left to drain when the load stops.
    return await measure('visit skeleton: node:http + Redis limit + NATS request + one insert', {
      ...load,
      url: `${gateway.url}/t/v1/visits`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'pk_bench', token: 'bench' }),
      window: window?.(processes),
    });
  } finally {
    gateway.stop();
    service.stop();
  }
}
