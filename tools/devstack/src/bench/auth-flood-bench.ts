/**
 * Does a flood of bad API secrets slow merchants whose secrets are good? Starts the system,
 * then measures `GET /v1/affiliates?limit=1` of a good merchant alone, and again while a
 * flooder sends made-up secrets from the same address (127.0.0.1: the worst case, one shared
 * address, as behind a load balancer that is not a trusted proxy). Prints both, the ratios
 * (flooded / alone) and what the flood was answered.
 *   node tools/devstack/dist/bench/auth-flood-bench.js [--duration 8] [--connections 10]
 *        [--flood-connections 20] [--flood-rate 0]   (0: as fast as the flood connections go)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startInfra } from '../infra';
import { findRepoRoot } from '../repo-root';
import { startSystem } from '../system';
import { formatTable, measure, type Measurement } from './measure';

export interface AuthFloodResult {
  alone: Measurement;
  flooded: Measurement;
  flood: { requests: number; byStatus: Record<string, number> };
  throughputRatio: number;
  p99Ratio: number;
}

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;

export async function benchAuthFlood(
  gatewayUrl: string,
  goodSecret: string,
  opts: {
    connections: number;
    durationSeconds: number;
    floodConnections: number;
    floodRate: number;
  },
): Promise<AuthFloodResult> {
  const load = {
    url: `${gatewayUrl}/v1/affiliates?limit=1`,
    headers: { authorization: basic(goodSecret) },
    connections: opts.connections,
    durationSeconds: opts.durationSeconds,
  };
  const alone = await measure('good merchant alone', load);
  const byStatus: Record<string, number> = {};
  // A new made-up secret per request, so nothing can be answered from a cache of failures.
  let floodDone: (result: autocannon.Result) => void = () => undefined;
  const flooding = new Promise<autocannon.Result>((resolve) => (floodDone = resolve));
  const instance = autocannon(
    {
      url: `${gatewayUrl}/v1/affiliates?limit=1`,
      connections: opts.floodConnections,
      duration: opts.durationSeconds + 4, // covers the measurement's 2 s warm-up and its run
      ...(opts.floodRate > 0 ? { overallRate: opts.floodRate } : {}),
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            headers: {
              ...request.headers,
              authorization: basic(`sk_${randomBytes(18).toString('base64url')}`),
            },
          }),
        },
      ],
    },
    (error, result) => {
      if (error) throw error;
      floodDone(result);
    },
  );
  instance.on('response', (_client: unknown, statusCode: number) => {
    byStatus[statusCode] = (byStatus[statusCode] ?? 0) + 1;
  });
  const flooded = await measure('good merchant during the flood', load);
  const floodResult = await flooding;
  return {
    alone,
    flooded,
    flood: { requests: floodResult.requests.total, byStatus },
    throughputRatio: flooded.requestsPerSecond / alone.requestsPerSecond,
    p99Ratio: flooded.p99Ms / Math.max(1, alone.p99Ms),
  };
}

export function formatAuthFlood(result: AuthFloodResult): string {
  return [
    formatTable([result.alone, result.flooded]),
    `flood: ${result.flood.requests} requests with made-up secrets, answered ${Object.entries(
      result.flood.byStatus,
    )
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ')}`,
    `good merchant during the flood / alone: throughput ${result.throughputRatio.toFixed(2)} x, p99 latency ${result.p99Ratio.toFixed(2)} x; non-2xx of the good merchant during the flood: ${result.flooded.non2xx}`,
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '8' },
      connections: { type: 'string', default: '10' },
      'flood-connections': { type: 'string', default: '20' },
      'flood-rate': { type: 'string', default: '0' },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const root = findRepoRoot();
  const logDir = path.join(root, '.local', 'bench-logs');
  fs.mkdirSync(logDir, { recursive: true });
  const infra = await startInfra({ log: (line) => say(`[infra] ${line}`) });
  const system = await startSystem({ infra, logDir, env: { LOG_LEVEL: 'warn' } }).catch(
    async (error: unknown) => {
      await infra.stop();
      throw error;
    },
  );
  try {
    const merchant = JSON.parse(
      execFileSync(
        process.execPath,
        [
          path.join(root, 'services/gateway/dist/ops/cli.js'),
          'merchant:create',
          '--name',
          'Auth flood bench',
          '--rate-limit',
          '1000000000',
          '--json',
        ],
        {
          env: { ...process.env, MONGO_URL: infra.mongoUrl, NATS_URL: infra.natsUrl },
          encoding: 'utf8',
        },
      ),
    ) as { api_secret: string };
    const result = await benchAuthFlood(system.gatewayUrl, merchant.api_secret, {
      connections: Number(values.connections),
      durationSeconds: Number(values.duration),
      floodConnections: Number(values['flood-connections']),
      floodRate: Number(values['flood-rate']),
    });
    say(formatAuthFlood(result));
  } finally {
    await system.stop();
    await infra.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`auth flood bench failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
