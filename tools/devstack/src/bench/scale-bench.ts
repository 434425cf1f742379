/**
 * `npm run bench:scale`: does a merchant's long history cost start-up, memory or list time?
 * On the local database (H2 backend) and the whole system, it measures every service's time to
 * ready and RSS after a restart, and list latencies through the gateway, first with one merchant
 * of 1,000 referrals and 1,000 commissions, then while a second merchant's history is seeded in
 * steps up to `--referrals` (default 1,000,000) and `--commissions` (default 200,000), written as
 * the services write them (history-seed.ts: batched `insertMany`s, counts updated per batch),
 * with the seed rate and the database file's size. After each step (`--steps`, referral counts,
 * default 100,000, 400,000 and the total; commissions in proportion) it prints each figure as a
 * ratio to the small one (target for start-up and RSS: at most 1.5), so a run cut short still
 * shows the largest size it reached; a failed request or start is printed with the figures, not
 * fatal. Then, per event type (a visit, a lead, a customer, a charge), the documents written that
 * no retention rule prunes (docs/retention.md), and the documents of each collection.
 *   npm run bench:scale -- [--referrals N] [--commissions N] [--steps a,b,…] [--requests 10]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import mongoose from 'mongoose';
import { startInfra } from '../infra';
import { findRepoRoot } from '../repo-root';
import { seedCommissions, seedReferrals, type SeedTarget } from '../scale/history-seed';
import { SYSTEM_PROCESSES, startSystem } from '../system';
import { prepareAffiliate, type BenchMerchant } from './money-bench';
import { createMerchant } from './create-merchant';
import { growthPerEvent, PRUNED } from './scale-events';
import { cpuMs, databasePid } from './database-cpu';
import { databaseSettled, listLatencies, printPhase, restartAll } from './scale-report';

const SMALL = 1_000;

export function runScaleBench(argv: string[]): void {
  main(argv).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.stack : error}\n`);
      process.exit(1);
    },
  );
}

/** Referral counts to stop and measure at, ending with the total. */
function stepsOf(total: number, given: string | undefined): number[] {
  const asked = given ? given.split(',').map(Number) : [100_000, 400_000].filter((n) => n < total);
  return [...new Set([...asked.filter((n) => n > 0 && n < total), total])].sort((a, b) => a - b);
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      referrals: { type: 'string', default: '1000000' },
      commissions: { type: 'string', default: '200000' },
      steps: { type: 'string' },
      requests: { type: 'string', default: '10' },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const root = findRepoRoot();
  const logDir = path.join(root, '.local', 'bench-logs');
  fs.mkdirSync(logDir, { recursive: true });
  // The database's file is looked at after each step (its size), so its parent dir is ours.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-scale-'));
  const infra = await startInfra({
    log: (line) => say(`[infra] ${line}`),
    mongoBackend: 'h2',
    dataDir,
  });
  const system = await startSystem({ infra, logDir, env: { LOG_LEVEL: 'warn' } });
  const mongo = await mongoose.createConnection(infra.mongoUrl).asPromise();
  try {
    const requests = Number(values.requests);
    const targetOf = async (merchant: BenchMerchant) => {
      const affiliate = await prepareAffiliate(system.gatewayUrl, merchant);
      const target: SeedTarget = {
        merchantId: merchant.merchant_id,
        affiliateId: affiliate.id,
        campaignId: affiliate.campaign.id,
        linkId: affiliate.links[0].id,
      };
      return { target, token: affiliate.links[0].token as string };
    };
    // Taken once: under a long scan the connection may be between reconnects at the moment a
    // step starts (`useDb(...).db` is then undefined); the driver's handles outlive that.
    const trackingDb = mongo.useDb('tracking').db!;
    const commissionDb = mongo.useDb('commission').db!;
    const seedInto = async (target: SeedTarget, referrals: number, commissions: number) => {
      const timed = async (what: string, n: number, run: () => Promise<void>) => {
        const started = Date.now();
        await run();
        const s = (Date.now() - started) / 1000;
        say(`  seeded ${n} ${what} in ${s.toFixed(0)} s (${Math.round(n / s)}/s)`);
      };
      if (referrals > 0)
        await timed('referrals', referrals, () =>
          seedReferrals(trackingDb, target, { count: referrals }),
        );
      if (commissions > 0)
        await timed('commissions', commissions, () =>
          seedCommissions(commissionDb, target, { count: commissions }),
        );
    };
    // Each restart waits for the previous service's start-up sweeps (scans on this server).
    const gatewayDb = mongo.useDb('gateway').db!;
    const dbPid = databasePid(infra.mongoUrl);
    const databaseCpu = () => (dbPid === undefined ? undefined : cpuMs(dbPid));
    const settled = async () => {
      const waited = await databaseSettled(
        () => gatewayDb.collection('merchants').findOne({}),
        undefined,
        databaseCpu,
      );
      say(`  (database settled after ${(waited / 1000).toFixed(0)} s)`);
    };
    const phase = async (merchant: BenchMerchant) => {
      const started = await restartAll(system, settled, databaseCpu);
      const lists = await listLatencies(system.gatewayUrl, merchant, requests);
      // The lists that scan here go on in the database after the gateway's 504: the next
      // step's seeding (or the last tables) would otherwise wait behind them and time out.
      await settled();
      return { started, lists };
    };

    const small = createMerchant(root, infra, 'scale small');
    const smallSeed = await targetOf(small);
    await seedInto(smallSeed.target, SMALL, SMALL);
    const before = await phase(small);
    printPhase(say, `${SMALL} referrals / ${SMALL} commissions (itself)`, before, before);

    const large = createMerchant(root, infra, 'scale large');
    const { target } = await targetOf(large);
    const referrals = Number(values.referrals);
    const commissions = Number(values.commissions);
    let seeded = { referrals: 0, commissions: 0 };
    for (const step of stepsOf(referrals, values.steps)) {
      const upTo = { referrals: step, commissions: Math.round((commissions * step) / referrals) };
      say(
        `\nseeding one merchant up to ${upTo.referrals} referrals / ${upTo.commissions} commissions`,
      );
      await seedInto(
        target,
        upTo.referrals - seeded.referrals,
        upTo.commissions - seeded.commissions,
      );
      seeded = upTo;
      say(`  database file: ${databaseFileMb(dataDir)} MB`);
      const after = await phase(large);
      printPhase(say, `${step} referrals / ${upTo.commissions} commissions`, before, after);
    }

    say('\ndocuments written per event type, and whether a retention rule prunes them');
    say('| event | never pruned | pruned |');
    say('|---|---|---|');
    for (const g of await growthPerEvent(mongo, system.gatewayUrl, small, smallSeed.token)) {
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
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The size of the H2 file(s) under the bench's data dir. */
function databaseFileMb(dir: string): string {
  let bytes = 0;
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.mv')) bytes += fs.statSync(full).size;
    }
  };
  walk(dir);
  return (bytes / 1024 / 1024).toFixed(0);
}

/** Every collection of every service database: documents, and whether retention prunes it. */
async function printCollections(mongo: mongoose.Connection, say: (line: string) => void) {
  say('\ndocuments per collection after the run (records are kept; the rest must be pruned)');
  say('| database.collection | documents | pruned |');
  say('|---|---|---|');
  for (const db of ['gateway', ...SYSTEM_PROCESSES.filter((n) => n !== 'gateway')]) {
    const handle = mongo.useDb(db).db;
    if (!handle) continue;
    const names = (await handle.listCollections().toArray()).map((c) => c.name).sort();
    for (const name of names) {
      const count = await handle.collection(name).estimatedDocumentCount();
      say(`| ${db}.${name} | ${count} | ${PRUNED.has(name) ? 'yes' : 'no (records)'} |`);
    }
  }
}
