/** One load measurement with autocannon: throughput and latency percentiles. */
import autocannon from 'autocannon';

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Opened after the warm-up, around the measured run; closed with the 2xx answers. */
  window?: () => { end(events: number): unknown };
}

export async function measure(name: string, opts: LoadOptions): Promise<Measurement> {
  // A short warm-up so JIT and connection pools are settled before the measured run.
  const request = {
    url: opts.url,
    headers: opts.headers,
    method: opts.method ?? 'GET',
    body: opts.body,
    connections: opts.connections,
  };
  await autocannon({ ...request, duration: 2 });
  const window = opts.window?.();
  const result = await autocannon({ ...request, duration: opts.durationSeconds });
  window?.end(result['2xx']);
  return {
    name,
    // Only 2xx answers count: an error page served fast is not throughput.
    requestsPerSecond: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function formatTable(rows: Measurement[]): string {
  const lines = [
    `${'target'.padEnd(44)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'non-2xx'.padStart(8)} ${'errors'.padStart(7)}`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.name.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(9)} ${String(r.p50Ms).padStart(8)} ${String(r.p99Ms).padStart(8)} ${String(r.non2xx).padStart(8)} ${String(r.errors).padStart(7)}`,
    );
  }
  return lines.join('\n');
}
