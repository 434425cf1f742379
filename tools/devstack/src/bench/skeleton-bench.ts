/**
 * Measures the design's visit path stripped to its mandated hops (skeleton-gateway.ts and
 * skeleton-service.ts, two processes like the gateway and tracking) with the visits' own load
 * (money-bench.ts), on the same servers.
 */
import { startBaseline } from './bench-targets';
import type { Measurement } from './measure';
import { benchVisits } from './money-bench';

export async function benchVisitSkeleton(
  infra: { natsUrl: string; mongoUrl: string; redisUrl: string },
  load: { connections: number; durationSeconds: number },
): Promise<Measurement> {
  const service = await startBaseline('skeleton-service', [infra.natsUrl, infra.mongoUrl]);
  const gateway = await startBaseline('skeleton-gateway', [infra.natsUrl, infra.redisUrl]);
  try {
    const measured = await benchVisits(gateway.url, { public_key: 'pk_bench' }, 'bench', load);
    return {
      ...measured,
      name: 'visit skeleton: node:http + Redis limit + NATS request + one insert',
    };
  } finally {
    gateway.stop();
    service.stop();
  }
}
