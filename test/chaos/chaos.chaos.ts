/**
 * Chaos at scale (issue 11, item 1): concurrent journeys through the real gateway while faults
 * arrive at random: SIGKILLs of service processes that the launcher's supervisor restarts, a
 * NATS restart with its store kept, a Redis outage, a webhook receiver answering 500. Once it
 * settles, every count is checked exactly (see verify.ts). Not part of `npm test`: run it with
 * `npm run test:chaos` (options: --journeys N, --duration 30m for a soak; see docs/chaos.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startSystem, type RunningSystem } from '@aff/devstack';
import { createMerchant } from '../support/merchant';
import {
  startReceiver,
  type WebhookReceiver,
} from '../../services/webhook/test/support/webhook-receiver';
import { ChaosClient, newStats } from './client';
import { runFaults, type FaultLog } from './faults';
import { planJourney, runJourney, type JourneyOutcome } from './journey';
import { startMongo, startNats, startRedis, type RestartableServer } from './servers';
import { expectedOf, verifyRound, type Verdict } from './verify';

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const JOURNEYS = num('CHAOS_JOURNEYS', 1000);
const DURATION_MS = num('CHAOS_DURATION_MS', 0); // 0: one round; else rounds until it is spent
const KILLS = num('CHAOS_KILLS', 20);
const IN_FLIGHT = num('CHAOS_IN_FLIGHT', 48);
const FAULT_WINDOW_MS = num('CHAOS_FAULT_WINDOW_MS', 120_000);
const SETTLE_MS = num('CHAOS_SETTLE_MS', 5 * 60_000);
const ROUND_TIMEOUT_MS = 4 * FAULT_WINDOW_MS + 3 * SETTLE_MS + JOURNEYS * 600;
const SUMMARY_FILE = path.resolve(__dirname, '../../.local/chaos-summary.txt');

const say = (line: string) => {
  process.stdout.write(`${line}\n`);
  fs.appendFileSync(SUMMARY_FILE, `${line}\n`);
};

describe('chaos: journeys under random faults, counts exact', () => {
  let dataDir: string;
  let mongo: RestartableServer;
  let nats: RestartableServer;
  let redis: RestartableServer;
  let system: RunningSystem;
  const restarts: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(path.dirname(SUMMARY_FILE), { recursive: true });
    fs.writeFileSync(SUMMARY_FILE, '');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-chaos-'));
    [mongo, nats, redis] = await Promise.all([
      startMongo(dataDir),
      startNats(dataDir),
      startRedis(dataDir),
    ]);
    // The ops CLI (createMerchant) reads these.
    Object.assign(process.env, { MONGO_URL: mongo.url, NATS_URL: nats.url, REDIS_URL: redis.url });
    const logDir = path.resolve(__dirname, '../../.local/chaos-logs', `run-${Date.now()}`);
    fs.mkdirSync(logDir, { recursive: true });
    system = await startSystem({
      infra: { mongoUrl: mongo.url, natsUrl: nats.url, redisUrl: redis.url },
      logDir,
      replicas: { tracking: 2, commission: 2 },
      // What `npm start` does: a process that dies is started again, with backoff.
      restartOnExit: true,
      onNotice: (line) => restarts.push(line),
      env: {
        LOG_LEVEL: 'warn',
        OTEL_SDK_DISABLED: 'true',
        TRACKING_RATE_LIMIT_POINTS: '100000000',
        // A request caught by a kill waits this long before the client sends it again.
        RPC_TIMEOUT_MS: '20000',
        // Webhook retries 10× sooner (first after 3 s), so the 500 window heals within the run.
        WEBHOOK_TIME_SCALE: '10',
      },
    });
    say(`chaos: system up (logs in ${path.relative(process.cwd(), logDir)})`);
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await Promise.all([mongo, nats, redis].map((s) => s?.stop('SIGTERM')));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  async function round(n: number): Promise<Verdict> {
    const roundTag = `r${n}_${Date.now().toString(36)}`;
    const stats = newStats();
    const client = new ChaosClient(system.gatewayUrl, stats, IN_FLIGHT);
    const merchant = await createMerchant({ rateLimit: 100_000_000, name: `Chaos ${roundTag}` });
    const secret = merchant.api_secret;
    const receiver: WebhookReceiver = await startReceiver();
    try {
      const endpoint = await client.send('POST', '/v1/webhook_endpoints', {
        secret,
        form: { url: receiver.url },
      });
      if (endpoint.status !== 200) throw new Error(`webhook endpoint: ${endpoint.status}`);
      const campaign = await client.send('POST', '/v1/campaigns', {
        secret,
        form: {
          name: `Chaos ${roundTag}`,
          commission_percent: '20',
          days_until_commissions_are_due: '0',
          // Held journeys (planJourney) give disposable e-mails: their commissions wait for review.
          'fraud_policy[disposable_email]': 'hold',
        },
      });
      if (campaign.status !== 200) throw new Error(`campaign: ${campaign.status}`);

      const ctx = { client, merchant, campaignId: campaign.body.id, settleMs: SETTLE_MS };
      const startedAt = Date.now();
      let inFlight = 0;
      const faults: FaultLog[] = [];
      const plans = Array.from({ length: JOURNEYS }, (_, i) => planJourney(roundTag, i));
      const load = Promise.all(
        plans.map(async (plan): Promise<JourneyOutcome> => {
          inFlight++;
          try {
            return await runJourney(ctx, plan);
          } finally {
            inFlight--;
          }
        }),
      );
      // A line every 30 s while the load runs, so a slow or stuck run shows where it is.
      const progress = setInterval(() => {
        const secs = ((Date.now() - startedAt) / 1000).toFixed(0);
        say(
          `  … +${secs} s: ${JOURNEYS - inFlight}/${JOURNEYS} journeys done, ${stats.requests} requests`,
        );
      }, 30_000);
      void load.finally(() => clearInterval(progress));
      const restartsBefore = restarts.length;
      await runFaults(
        {
          kills: KILLS,
          windowMs: FAULT_WINDOW_MS,
          redisOutageMs: 10_000,
          webhook500Ms: 30_000,
          natsDownMs: 2_000,
        },
        { system, nats, redis, receiver, inFlight: () => inFlight },
        faults,
        startedAt,
      );
      const outcomes = await load;
      const loadMs = Date.now() - startedAt;

      // Settle: repeat the checks until they are clean or the time is up.
      let verdict = await verifyRound(client, merchant, outcomes, receiver, endpoint.body.id);
      const settleDeadline = Date.now() + SETTLE_MS;
      while (verdict.problems.length > 0 && Date.now() < settleDeadline) {
        await delay(10_000);
        verdict = await verifyRound(client, merchant, outcomes, receiver, endpoint.body.id);
      }
      const settledMs = Date.now() - startedAt;

      const e = expectedOf(outcomes);
      say(`\nchaos round ${n} (merchant ${merchant.merchant_id}): ${JOURNEYS} concurrent journeys`);
      say(
        `  load: ${e.charges} charges, ${e.fullRefunds} full and ${e.partialRefunds} partial refunds, ${e.payouts} payouts; ` +
          `journeys done in ${(loadMs / 1000).toFixed(0)} s, settled in ${(settledMs / 1000).toFixed(0)} s`,
      );
      say(
        `  client: ${stats.requests} requests, ${stats.retried} retried (network errors ${stats.networkErrors}, 5xx/429 ${JSON.stringify(stats.serverErrors)}), ` +
          `${outcomes.filter((o) => o.visitRetried).length} visits sent more than once`,
      );
      const ranTwice = outcomes.filter((o) => o.keyRanTwice);
      say(
        `  idempotency: ${stats.busyKeys} answers 409 (key left claimed by a killed gateway, retried); ` +
          `${ranTwice.length} affiliate creates ran twice under one Idempotency-Key (the retry got 422 "Email has already been taken")` +
          (ranTwice.length
            ? `: journeys ${ranTwice
                .slice(0, 20)
                .map((o) => o.plan.index)
                .join(', ')}`
            : ''),
      );
      say(`  faults injected (${faults.length}):`);
      for (const f of faults)
        say(`    +${(f.at / 1000).toFixed(1)} s  ${f.what}  [${f.inFlight} journeys in flight]`);
      say(`  launcher restarts: ${restarts.length - restartsBefore}`);
      for (const line of restarts.slice(restartsBefore)) say(`    ${line}`);
      say('  counts checked (expected / seen):');
      for (const [name, c] of Object.entries(verdict.counts))
        say(
          `    ${verdict.problems.some((p) => p.startsWith(`${name}:`)) ? 'BAD' : 'ok '} ${name}: ${c.expected} / ${c.seen}`,
        );
      const stuck = outcomes.filter((o) => o.stuck);
      for (const o of stuck.slice(0, 20))
        say(`  journey ${o.plan.index} stuck: ${o.stuck} (affiliate ${o.affiliateId})`);
      if (stuck.length > 20) say(`  … and ${stuck.length - 20} more stuck journeys`);
      // Answers outside the API contract (e.g. a 500 where 503 is documented) are findings, shown
      // here and in CI's log; they fail the run only with CHAOS_STRICT_CONTRACT=1, since the
      // issue's pass condition is the counts (see docs/chaos.md). A create that ran twice under
      // one Idempotency-Key always fails it.
      for (const [what, times] of Object.entries(stats.nonConforming))
        say(`  CONTRACT VIOLATION ×${times}: ${what}`);
      for (const p of verdict.problems.slice(0, 200)) say(`  PROBLEM ${p}`);
      if (verdict.problems.length > 200) say(`  … ${verdict.problems.length - 200} more problems`);
      return {
        counts: verdict.counts,
        problems: [
          ...verdict.problems,
          ...stuck.map((o) => `journey ${o.plan.index}: ${o.stuck}`),
          // A retried create must never take effect twice (issue 11), whatever killed its gateway.
          ...ranTwice.map((o) => `journey ${o.plan.index}: affiliate create ran twice`),
          ...(process.env.CHAOS_STRICT_CONTRACT === '1'
            ? Object.keys(stats.nonConforming).map((what) => `contract: ${what}`)
            : []),
        ],
      };
    } finally {
      await receiver.stop();
    }
  }

  it(
    'loses and doubles nothing',
    async () => {
      const end = Date.now() + DURATION_MS;
      const problems: string[] = [];
      for (let n = 1; ; n++) {
        const verdict = await round(n);
        problems.push(...verdict.problems.map((p) => `round ${n}: ${p}`));
        if (problems.length > 0 || Date.now() >= end) break;
      }
      say(problems.length === 0 ? 'chaos: passed' : `chaos: FAILED, ${problems.length} problems`);
      expect(problems).toEqual([]);
    },
    DURATION_MS + ROUND_TIMEOUT_MS,
  );
});
