/**
 * `npm run bench:scale`: does a merchant's long history cost start-up, memory or list time?
 * On the local database (H2 backend) and the whole system, it measures every service's time to
 * ready and RSS after a restart, and list latencies through the gateway, first with one merchant
 * of 1,000 referrals and 1,000 commissions, then after seeding a second merchant with
 * `--referrals` (default 1,000,000) and `--commissions` (default 200,000), written as the
 * services write them (history-seed.ts), with the seed rate. Prints each figure at scale as a
 * ratio to the small one (target for start-up and RSS: at most 1.5); a failed request or start
 * is printed with the figures, not fatal. Then, per event type (a visit, a lead, a customer, a
 * charge), the documents written that no retention rule prunes (docs/retention.md), and the
 * documents of each collection.
 *   npm run bench:scale -- [--referrals N] [--commissions N] [--requests 20]
 * The local database seeds a few hundred to a few thousand documents a second on a loaded
 * machine: the issue's 1,000,000 / 200,000 take hours there; README, "Scale" gives the sizes run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import mongoose from 'mongoose';
import { startInfra } from '../infra';
import { findRepoRoot } from '../repo-root';
import { seedCommissions, seedReferrals, type SeedTarget } from '../scale/history-seed';
import { SYSTEM_PROCESSES, startSystem, type RunningSystem } from '../system';
import { prepareAffiliate, type BenchMerchant } from './money-bench';
import { createMerchant } from './create-merchant';
import { growthPerEvent, PRUNED } from './scale-events';

const SMALL = 1_000;

interface Started {
  readyMs: number;
  rssMb: number;
  error?: string;
}

interface Latency {
  first: number;
  median: number;
  /** Requests that failed (status or network error), with what came back. */
  failed: string[];
}

export function runScaleBench(argv: string[]): void {
  main(argv).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.stack : error}\n`);
      process.exit(1);
    },
  );
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      referrals: { type: 'string', default: '1000000' },
      commissions: { type: 'string', default: '200000' },
      requests: { type: 'string', default: '20' },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const root = findRepoRoot();
  const logDir = path.join(root, '.local', 'bench-logs');
  fs.mkdirSync(logDir, { recursive: true });
  const infra = await startInfra({ log: (line) => say(`[infra] ${line}`), mongoBackend: 'h2' });
  const system = await startSystem({ infra, logDir, env: { LOG_LEVEL: 'warn' } });
  const mongo = await mongoose.createConnection(infra.mongoUrl).asPromise();
  try {
    const requests = Number(values.requests);
    const seedInto = async (merchant: BenchMerchant, referrals: number, commissions: number) => {
      const affiliate = await prepareAffiliate(system.gatewayUrl, merchant);
      const target: SeedTarget = {
        merchantId: merchant.merchant_id,
        affiliateId: affiliate.id,
        campaignId: affiliate.campaign.id,
        linkId: affiliate.links[0].id,
      };
      const started = Date.now();
      let shown = 0;
      const rate = (n: number, since: number) =>
        `${n} in ${((Date.now() - since) / 1000).toFixed(0)} s (${Math.round(n / ((Date.now() - since) / 1000))}/s)`;
      const progress = (what: string) => (done: number) => {
        if (done - shown < 100_000) return;
        shown = done;
        say(`  ${what}: ${done} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      };
      await seedReferrals(mongo.useDb('tracking').db!, target, {
        count: referrals,
        onProgress: progress('referrals'),
      });
      say(`seeded referrals: ${rate(referrals, started)}`);
      shown = 0;
      const commissionsStarted = Date.now();
      await seedCommissions(mongo.useDb('commission').db!, target, {
        count: commissions,
        onProgress: progress('commissions'),
      });
      say(`seeded commissions: ${rate(commissions, commissionsStarted)}`);
      return affiliate.links[0].token as string;
    };
    const phase = async (merchant: BenchMerchant) => ({
      started: await restartAll(system),
      lists: await listLatencies(system.gatewayUrl, merchant, requests),
    });

    const small = createMerchant(root, infra, 'scale small');
    const smallToken = await seedInto(small, SMALL, SMALL);
    const before = await phase(small);
    const large = createMerchant(root, infra, 'scale large');
    const referrals = Number(values.referrals);
    const commissions = Number(values.commissions);
    say(`seeding ${referrals} referrals and ${commissions} commissions for one merchant …`);
    await seedInto(large, referrals, commissions);
    const after = await phase(large);

    say(`\nservice restart at ${SMALL} → at ${referrals} referrals / ${commissions} commissions`);
    say('| service | ready (ms) | ratio | RSS (MB) | ratio |');
    say('|---|---|---|---|---|');
    for (const name of Object.keys(before.started)) {
      const a = before.started[name]!;
      const b = after.started[name]!;
      say(
        `| ${name} | ${a.readyMs} → ${b.readyMs} | ${ratio(b.readyMs, a.readyMs)} | ${a.rssMb.toFixed(0)} → ${b.rssMb.toFixed(0)} | ${ratio(b.rssMb, a.rssMb)} |${[a.error, b.error].filter(Boolean).join('; ')}`,
      );
    }
    say(
      '\nlist latency through the gateway, median of warm requests (first request after restart)',
    );
    say('| request | small (ms) | large (ms) | ratio | failed requests |');
    say('|---|---|---|---|---|');
    for (const name of Object.keys(before.lists)) {
      const a = before.lists[name]!;
      const b = after.lists[name]!;
      const failed = [...a.failed.map((f) => `small: ${f}`), ...b.failed.map((f) => `large: ${f}`)];
      say(
        `| ${name} | ${a.median.toFixed(1)} (${a.first.toFixed(0)}) | ${b.median.toFixed(1)} (${b.first.toFixed(0)}) | ${ratio(b.median, a.median)} | ${failed.length ? failed.join('; ') : 'none'} |`,
      );
    }
    say('\ndocuments written per event type, and whether a retention rule prunes them');
    say('| event | never pruned | pruned |');
    say('|---|---|---|');
    for (const g of await growthPerEvent(mongo, system.gatewayUrl, small, smallToken)) {
      const failed = g.error ? ` (failed: ${g.error})` : '';
      say(
        `| ${g.event}${failed} | ${g.kept.join(', ') || 'none'} | ${g.pruned.join(', ') || 'none'} |`,
      );
    }
    await printCollections(mongo, say);
  } finally {
    await mongo.close().catch(() => undefined);
    await system.stop().catch(() => undefined);
    await infra.stop().catch(() => undefined);
  }
}

function ratio(large: number, small: number): string {
  return `${(large / small).toFixed(2)} x`;
}

/** Restarts each service in turn: time until it reports ready, then its RSS. */
async function restartAll(system: RunningSystem): Promise<Record<string, Started>> {
  const result: Record<string, Started> = {};
  for (const name of SYSTEM_PROCESSES) {
    const started = Date.now();
    try {
      await system.stopProcess(name);
      await system.startProcess(name);
      const readyMs = Date.now() - started;
      const pid = system.processes().find((p) => p.name === name)!.pid;
      result[name] = { readyMs, rssMb: rssMb(pid) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result[name] = {
        readyMs: Date.now() - started,
        rssMb: 0,
        error: `restart failed: ${message}`,
      };
    }
  }
  return result;
}

function rssMb(pid: number): number {
  const match = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(match?.[1] ?? 0) / 1024;
}

async function listLatencies(gatewayUrl: string, merchant: BenchMerchant, requests: number) {
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  const paths = {
    'GET /v1/referrals?limit=25': '/v1/referrals?limit=25',
    'GET /v1/referrals?limit=25&page=100': '/v1/referrals?limit=25&page=100',
    'GET /v1/referrals?limit=25&conversion_state=lead':
      '/v1/referrals?limit=25&conversion_state=lead',
    'GET /v1/commissions?limit=25': '/v1/commissions?limit=25',
  };
  const out: Record<string, Latency> = {};
  for (const [name, url] of Object.entries(paths)) {
    const times: number[] = [];
    const failed: string[] = [];
    for (let i = 0; i <= requests; i++) {
      const started = performance.now();
      try {
        const res = await fetch(`${gatewayUrl}${url}`, { headers: { authorization: auth } });
        await res.arrayBuffer();
        if (!res.ok) failed.push(`#${i + 1} ${res.status}`);
      } catch (error) {
        failed.push(`#${i + 1} ${error instanceof Error ? error.message : String(error)}`);
      }
      // A failed request's time is kept too: a timeout is a latency.
      times.push(performance.now() - started);
    }
    const [first, ...warm] = times;
    warm.sort((a, b) => a - b);
    out[name] = { first: first!, median: warm[Math.floor(warm.length / 2)]!, failed };
  }
  return out;
}

/** Every collection of every service database: documents, and whether retention prunes it. */
async function printCollections(mongo: mongoose.Connection, say: (line: string) => void) {
  say('\ndocuments per collection after the run (records are kept; the rest must be pruned)');
  say('| database.collection | documents | pruned |');
  say('|---|---|---|');
  for (const db of ['gateway', ...SYSTEM_PROCESSES.filter((n) => n !== 'gateway')]) {
    const handle = mongo.useDb(db).db!;
    const names = (await handle.listCollections().toArray()).map((c) => c.name).sort();
    for (const name of names) {
      const count = await handle.collection(name).estimatedDocumentCount();
      say(`| ${db}.${name} | ${count} | ${PRUNED.has(name) ? 'yes' : 'no (records)'} |`);
    }
  }
}
