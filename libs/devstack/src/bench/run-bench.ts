/**
 * `npm run bench`: starts real servers and the whole system, seeds a merchant, then measures
 * authenticated `GET /v1/affiliates?limit=25` through the gateway against two baselines on the
 * same servers: (a) a bare node:http server with a fixed body, (b) a one-process node:http
 * server running the same MongoDB query. Prints figures and ratios; asserts nothing.
 *   npm run bench -- [--duration 10] [--connections 20]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startInfra } from '../infra';
import { findRepoRoot } from '../repo-root';
import { startSystem } from '../system';
import { startBaseline } from './bench-targets';
import { formatTable, measure, type Measurement } from './measure';
import { benchProcessorPath, benchVisits, prepareAffiliate } from './money-bench';
import { benchWebhooks, formatWebhookBench } from './webhook-bench';

export function runBench(argv: string[]): void {
  main(argv).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '20' },
    },
  });
  const durationSeconds = Number(values.duration);
  const connections = Number(values.connections);
  const root = findRepoRoot();
  const logDir = path.join(root, '.local', 'bench-logs');
  fs.mkdirSync(logDir, { recursive: true });

  const infra = await startInfra({
    log: (line) => process.stdout.write(`[infra] ${line}\n`),
    mongoBackend: 'h2',
  });
  const system = await startSystem({
    infra,
    logDir,
    env: { LOG_LEVEL: 'warn', TRACKING_RATE_LIMIT_POINTS: '1000000000' },
  });
  const stops: (() => unknown)[] = [() => infra.stop(), () => system.stop()];
  try {
    const merchant = JSON.parse(
      execFileSync(
        process.execPath,
        [
          path.join(root, 'services/gateway/dist/ops/cli.js'),
          'merchant:create',
          '--name',
          'Bench',
          '--rate-limit',
          '1000000000',
          '--json',
        ],
        {
          env: { ...process.env, MONGO_URL: infra.mongoUrl, NATS_URL: infra.natsUrl },
          encoding: 'utf8',
        },
      ),
    ) as {
      merchant_id: string;
      api_secret: string;
      public_key: string;
      processor_signing_secret: string;
    };
    const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
    await seedAffiliates(system.gatewayUrl, auth, 60);

    const fixed = await startBaseline('fixed-json-server');
    const monolith = await startBaseline('monolith-server', [infra.mongoUrl, merchant.merchant_id]);
    stops.push(fixed.stop, monolith.stop);

    const load = { connections, durationSeconds };
    const rows: Measurement[] = [];
    rows.push(
      await measure('gateway → NATS → affiliate → MongoDB', {
        ...load,
        url: `${system.gatewayUrl}/v1/affiliates?limit=25`,
        headers: { authorization: auth },
      }),
    );
    rows.push(await measure('(a) bare node:http, fixed JSON', { ...load, url: `${fixed.url}/` }));
    rows.push(
      await measure('(b) one-process node:http + same query', { ...load, url: `${monolith.url}/` }),
    );

    const [gateway, bare, mono] = rows as [Measurement, Measurement, Measurement];
    process.stdout.write(
      [
        '',
        `GET /v1/affiliates?limit=25, 60 affiliates, ${connections} connections, ${durationSeconds} s per target`,
        `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown cpu'}, Node ${process.version}`,
        formatTable(rows),
        '',
        `gateway / (a) bare node:http:        ${(gateway.requestsPerSecond / bare.requestsPerSecond).toFixed(3)}`,
        `gateway / (b) one-process baseline:  ${(gateway.requestsPerSecond / mono.requestsPerSecond).toFixed(3)} (target ≥ 0.70)`,
        '',
      ].join('\n'),
    );

    const affiliate = await prepareAffiliate(system.gatewayUrl, merchant);
    const visits = await benchVisits(system.gatewayUrl, merchant, affiliate.links[0].token, load);
    const processor = await benchProcessorPath(system.gatewayUrl, merchant, load);
    process.stdout.write(
      [
        'Money flow entry points',
        formatTable([visits, processor.intake]),
        '',
        `charge.succeeded → commission stored: ${processor.stored} charges in ${processor.pipelineSeconds.toFixed(1)} s = ${processor.commissionsPerSecond.toFixed(1)} commissions/s`,
        `one charge at a time, hook → commission readable via GET /v1/commissions: p50 ${processor.e2eP50Ms} ms, p99 ${processor.e2eP99Ms} ms (${processor.e2eSamples} samples)`,
        '',
      ].join('\n'),
    );

    // Last: it stops and restarts the webhook process to measure a backlog drain.
    const webhooks = await benchWebhooks(system, merchant, {
      log: (line) => process.stdout.write(`${line}\n`),
    });
    process.stdout.write(`${formatWebhookBench(webhooks)}\n`);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
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
