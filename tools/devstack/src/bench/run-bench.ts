/**
 * `npm run bench`: starts real servers (the local database on its H2 backend) and the whole
 * system, then measures in one run, on the same servers:
 *  - the raw single-document insert rate at the load's concurrency on the warmed server (the
 *    floor of a durable visit), and every hot path as a share of it: visits, the drain of a
 *    backlog of charges into commissions, the drain of a backlog of webhook deliveries;
 *  - the visit skeleton: the design's visit path stripped to its mandated hops (no target; it
 *    shows how much of the raw insert rate any implementation of that path can reach);
 *  - hook → commission readable, p50 and p99, at a steady 20 charges/s;
 *  - `GET /v1/referrals?limit=25` with 100 and with 10,000 referrals in the tenant;
 *  - `GET /v1/affiliates?limit=25` through the gateway against two one-process baselines;
 *  - each console page against the REST list it uses, at 10,000 affiliates and 10,000
 *    referrals (console-phase.ts; `--only console` runs that phase alone, at the issue's
 *    100,000 referrals, on the local server's memory store unless `--console-backend h2`).
 * `--only charges|visits` runs one phase alone. Each window's CPU per event by process
 * (cpu-account.ts); every target, and under each one missed what bounds it, from that CPU and
 * the documents written (bench-verdict.ts, missed-bounds.ts). `--help`: bench-usage.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startInfra } from '../infra';
import { findRepoRoot } from '../repo-root';
import { startSystem } from '../system';
import { benchAffiliateList } from './affiliate-list-bench';
import { benchCharges, formatChargeFigures, formatChargesAlone } from './charge-bench';
import {
  CONSOLE_ARGS,
  benchMongoBackend,
  consoleOptionsOf,
  formatConsolePhase,
  runConsolePhase,
} from './console-phase';
import { createMerchant } from './create-merchant';
import { benchTargets, CPU, formatTargets } from './bench-verdict';
import { CpuMeter, formatCpuAccounts, type CountedProcess, type CpuAccount } from './cpu-account';
import { BENCH_USAGE } from './bench-usage';
import { formatTable } from './measure';
import { benchReferralList } from './referral-list-bench';
import { settleCpu } from './settle';
import { formatVisitPhase, runVisitPhase } from './visit-phase';
import { benchWebhooks, formatWebhookBench } from './webhook-bench';
import { formatWriteAccounts, WriteMeter } from './write-stats';

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
      json: { type: 'string' },
      charges: { type: 'string', default: '2000' },
      deliveries: { type: 'string', default: '2000' },
      referrals: { type: 'string', default: '10000' },
      help: { type: 'boolean', default: false },
      ...CONSOLE_ARGS,
    },
  });
  if (values.help) {
    process.stdout.write(BENCH_USAGE);
    return;
  }
  if (values.only !== undefined && !['console', 'charges', 'visits'].includes(values.only))
    throw new Error(
      `--only ${values.only}: the phases that run alone are visits, charges, console`,
    );
  const durationSeconds = Number(values.duration);
  const connections = Number(values.connections);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const root = findRepoRoot();
  const logDir = path.join(root, '.local', 'bench-logs');
  fs.mkdirSync(logDir, { recursive: true });
  const benchStarted = Date.now();

  // Every service writes its command statistics here: documents written per event.
  const statsDir = path.join(logDir, 'command-stats');
  fs.rmSync(statsDir, { recursive: true, force: true });
  fs.mkdirSync(statsDir, { recursive: true });
  const writes = new WriteMeter(path.join(statsDir, 'stats'));
  const infra = await startInfra({
    log: (line) => say(`[infra] ${line}`),
    mongoBackend: benchMongoBackend(values),
  });
  const system = await startSystem({
    infra,
    logDir,
    env: {
      LOG_LEVEL: 'warn',
      TRACKING_RATE_LIMIT_POINTS: '1000000000',
      MONGO_COMMAND_STATS_FILE: path.join(statsDir, 'stats'),
    },
  });
  const stops: (() => unknown)[] = [() => infra.stop(), () => system.stop()];
  try {
    const consolePhase = () => runConsolePhase(root, infra, system, consoleOptionsOf(values), say);
    if (values.only === 'console') {
      const pages = await consolePhase();
      say(`\n${formatConsolePhase(pages)}`);
      say(`bench took ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
      if (values.json)
        fs.writeFileSync(values.json, `${JSON.stringify({ console: pages }, null, 2)}\n`);
      return;
    }
    const newMerchant = (name: string) => createMerchant(root, infra, name);
    const meter = new CpuMeter(system, infra);
    const cpu: Record<string, CpuAccount | undefined> = {};
    const windowFor = (name: string, only?: CountedProcess[]) => () => {
      const window = meter.start(only);
      return { end: (events: number) => (cpu[name] = window.end(events)) };
    };
    const chargePhase = () =>
      benchCharges(system, newMerchant('Bench charges'), {
        customers: Number(values.charges),
        concurrency: connections,
        steadyRate: 20,
        steadySeconds: durationSeconds,
        log: say,
        drainWindow: windowFor(CPU.chargeDrain),
        steadyWindow: windowFor(CPU.chargeSteady),
        writes,
      });
    if (values.only === 'charges') {
      // The charge path alone (e.g. `--charges 300 --duration 3`): documents and CPU per charge.
      const alone = await chargePhase();
      say(`\n${formatChargesAlone(alone, cpu)}`);
      say(`bench took ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
      if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(alone, null, 2)}\n`);
      return;
    }
    const merchant = newMerchant('Bench');
    const load = { connections, durationSeconds };
    const visitPhase = await runVisitPhase(infra, {
      gatewayUrl: system.gatewayUrl,
      load,
      merchant,
      hookedMerchant: () => newMerchant('Bench hooked'),
      windowFor,
      writes,
      say,
      onStop: (stop) => stops.push(stop),
    });
    const { raw, visits, hooked, skeleton } = visitPhase;
    const machine = `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown cpu'}, Node ${process.version}; local database: mongo-java-server (H2)`;
    const rawLine = `raw single-document inserts (${connections} writers, warmed): ${raw.insertsPerSecond.toFixed(0)}/s; first ${raw.warmup.windowSeconds} s of the cold server: ${raw.warmup.insertsPerSecond[0] ?? '?'}/s`;
    const visitWrites = {
      visit: visits.writes,
      'visit with a referral.created subscriber': hooked.writes,
    };
    if (values.only === 'visits') {
      const targets = benchTargets({
        rawInsertsPerSecond: raw.insertsPerSecond,
        cpu,
        visits: visitPhase,
      });
      say(
        [
          '',
          machine,
          rawLine,
          formatTable([visits, hooked, skeleton]),
          formatVisitPhase(visitPhase),
          '',
          formatCpuAccounts(cpu),
          '',
          formatWriteAccounts(visitWrites),
          '',
          formatTargets(targets),
          `bench took ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`,
        ].join('\n'),
      );
      if (values.json) {
        const figures = { raw, visits, hooked, skeleton, cpu, targets };
        fs.writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
      }
      return;
    }

    const charges = await chargePhase();

    say('referral list …');
    const list = await benchReferralList(system.gatewayUrl, newMerchant('Bench referrals'), {
      small: 100,
      large: Number(values.referrals),
      connections,
      durationSeconds: Math.max(3, Math.round(durationSeconds / 2)),
      log: say,
    });

    say('affiliate list against one-process baselines …');
    const affiliates = await benchAffiliateList(
      root,
      infra.mongoUrl,
      system.gatewayUrl,
      merchant,
      { connections, durationSeconds: Math.max(3, Math.round(durationSeconds / 2)) },
      {
        gateway: windowFor(CPU.affiliatesGateway),
        oneProcess: (processes) => windowFor(CPU.affiliatesOneProcess, processes),
      },
    );
    stops.push(...affiliates.stops);

    // Last: it stops and restarts the webhook process to measure a backlog drain.
    await settleCpu();
    const webhooks = await benchWebhooks(system, merchant, {
      liveEvents: 100,
      backlogEvents: Number(values.deliveries),
      log: say,
      drainWindow: windowFor(CPU.webhookDrain),
      writes,
    });

    // After the webhook drain: its seeding would otherwise be the others' background load.
    const consolePages = values['skip-console'] ? null : await consolePhase();

    const ratios = {
      visits: visits.requestsPerSecond / raw.insertsPerSecond,
      visits_with_subscriber: hooked.requestsPerSecond / raw.insertsPerSecond,
      visit_skeleton: skeleton.requestsPerSecond / raw.insertsPerSecond,
      visits_vs_skeleton: visits.requestsPerSecond / skeleton.requestsPerSecond,
      commission_drain: charges.drain.commissionsPerSecond / raw.insertsPerSecond,
      webhook_drain: webhooks.backlog.eventsPerSecond / raw.insertsPerSecond,
      referral_list_large_vs_small: list.large.requestsPerSecond / list.small.requestsPerSecond,
      affiliates_gateway_vs_one_process:
        affiliates.gateway.requestsPerSecond / affiliates.monolith.requestsPerSecond,
    };
    const writeAccounts = {
      ...visitWrites,
      charge: charges.writes,
      'webhook delivery': webhooks.writes,
    };
    const targets = benchTargets({
      rawInsertsPerSecond: raw.insertsPerSecond,
      cpu,
      visits: visitPhase,
      charges,
      webhooks,
      referralList: list,
      affiliates,
    });
    say(
      [
        '',
        machine,
        rawLine,
        formatTable([visits, hooked, skeleton, list.small, list.large, ...affiliates.rows]),
        formatVisitPhase(visitPhase),
        '',
        formatChargeFigures(charges),
        formatWebhookBench(webhooks),
        '',
        formatCpuAccounts(cpu),
        '',
        formatWriteAccounts(writeAccounts),
        '',
        consolePages ? formatConsolePhase(consolePages) : 'console pages: skipped',
        '',
        formatTargets(targets),
        `bench took ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`,
      ].join('\n'),
    );
    if (values.json) {
      const figures = {
        raw,
        visits,
        hooked,
        skeleton,
        writes: writeAccounts,
        charges,
        list,
        affiliates: affiliates.rows,
        webhooks,
        console: consolePages,
        cpu,
        ratios,
        targets,
      };
      fs.writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
      say(`figures written to ${values.json}`);
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
