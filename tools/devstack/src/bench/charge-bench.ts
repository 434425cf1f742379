/**
 * The charge path, on the system `run-bench` started: many attributed customers, then
 *  - drain: the tracking and commission services are stopped while a backlog of charges is
 *    accepted by the hook, then started; commissions per second until all are listed;
 *  - steady: charges at a fixed rate; time from the hook's answer to the commission showing in
 *    `GET /v1/commissions` (a poller reads the newest page with `expand[]=sale`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { RunningSystem } from '../system';
import {
  call,
  prepareAffiliate,
  sendProcessor,
  type BenchMerchant,
  type MeasuredWindow,
} from './money-bench';
import { inPool, percentile } from './pool';
import { describeSettle, settleCpu } from './settle';
import { formatCpuAccounts, type CpuAccount } from './cpu-account';
import { formatWriteAccounts, type WriteAccount, type WriteMeter } from './write-stats';

export interface ChargeBenchFigures {
  customers: number;
  /**
   * The clock starts once tracking and commission are ready (`startupSeconds` is off it): the
   * commissions made from then on (`measured`, the backlog less what was done during start-up)
   * over the seconds until the last is listed.
   */
  drain: {
    charges: number;
    measured: number;
    seconds: number;
    startupSeconds: number;
    commissionsPerSecond: number;
  };
  /** Documents written per charge, from before the backlog until its fan-out settled. */
  writes?: WriteAccount;
  steady: { ratePerSecond: number; samples: number; p50Ms: number; p99Ms: number; missing: number };
}

export interface ChargeBenchOptions {
  customers: number;
  concurrency: number;
  steadyRate: number;
  steadySeconds: number;
  log: (line: string) => void;
  /** Around the drain, from tracking and commission being ready to the last commission listed. */
  drainWindow?: MeasuredWindow;
  /** Around the steady phase: how busy the cores were while the latency was measured. */
  steadyWindow?: MeasuredWindow;
  writes?: WriteMeter;
}

export async function benchCharges(
  system: RunningSystem,
  merchant: BenchMerchant,
  opts: ChargeBenchOptions,
): Promise<ChargeBenchFigures> {
  const gw = system.gatewayUrl;
  const affiliate = await prepareAffiliate(gw, merchant);
  opts.log(`charge bench: ${opts.customers} attributed customers (visit + customer.created each)`);
  const customers = await inPool(opts.customers, opts.concurrency, async (i) => {
    const visit = await call(gw, '/t/v1/visits', {
      method: 'POST',
      body: JSON.stringify({ key: merchant.public_key, token: affiliate.links[0].token }),
    });
    const id = `cus_bench_${i}_${randomUUID().slice(0, 8)}`;
    await sendProcessor(gw, merchant, 'customer.created', {
      id,
      email: `buyer${i}@example.com`,
      name: `Buyer ${i}`,
      metadata: { referral: visit.referral.id },
    });
    return id;
  });
  await waitFor(async () => {
    const a = await call(gw, `/v1/affiliates/${affiliate.id}`, {}, merchant.api_secret);
    return a.leads >= opts.customers;
  }, 300_000);

  // The customers' fan-out (counters, webhooks) drains first, so the clock measures charges.
  const settle = await settleCpu();
  opts.log(
    `charge bench: ${describeSettle(settle)}; ${opts.customers} charges piled up while tracking and commission are stopped`,
  );
  await Promise.all([system.stopProcess('tracking'), system.stopProcess('commission')]);
  const writeWindow = await opts.writes?.start();
  const charge = (customer: string) =>
    sendProcessor(gw, merchant, 'charge.succeeded', {
      id: `ch_${randomUUID()}`,
      customer,
      amount: 10_000,
      currency: 'usd',
      tax: 0,
      amount_refunded: 0,
    });
  await inPool(customers.length, opts.concurrency, (i) => charge(customers[i]!));
  const starting = Date.now();
  await Promise.all([system.startProcess('tracking'), system.startProcess('commission')]);
  const startupSeconds = (Date.now() - starting) / 1000;
  // Start-up is off the clock: it starts once both are ready, from what they had done by then.
  const doneAtStart = await commissionCount(gw, merchant);
  const started = Date.now();
  const measured = opts.drainWindow?.();
  // Polled every 250 ms. The bench merchant has this one affiliate, so the unfiltered list's
  // count is its commissions: that list is served from the newest-first index in memory, where
  // an `affiliate_id` filter is a sorted scan and a count of every commission on the local
  // database (about 0.1 s of its time per poll after 2,000, a share of what it measures).
  await waitFor(
    async () => (await commissionCount(gw, merchant)) >= customers.length,
    600_000,
    250,
  );
  const drainSeconds = (Date.now() - started) / 1000;
  const drained = customers.length - doneAtStart;
  measured?.end(drained);

  // The drain's fan-out (counters, statistics, mails, payouts, webhooks) is still catching up
  // when the last commission shows: about 7 s of both cores after 1,000 charges. A latency taken
  // meanwhile measures that backlog, not a steady 20 charges/s.
  const settled = await settleCpu();
  const writes = await writeWindow?.end(customers.length);
  opts.log(
    `charge bench: ${describeSettle(settled)}; ${opts.steadyRate} charges/s for ${opts.steadySeconds} s`,
  );
  const steadyMeasured = opts.steadyWindow?.();
  const steady = await steadyCharges(gw, merchant, customers, opts);
  steadyMeasured?.end(steady.samples + steady.missing);
  return {
    customers: customers.length,
    drain: {
      charges: customers.length,
      measured: drained,
      seconds: drainSeconds,
      startupSeconds,
      commissionsPerSecond: drained / drainSeconds,
    },
    writes,
    steady,
  };
}

async function steadyCharges(
  gw: string,
  merchant: BenchMerchant,
  customers: string[],
  opts: ChargeBenchOptions,
): Promise<ChargeBenchFigures['steady']> {
  const acceptedAt = new Map<string, number>();
  const seenAt = new Map<string, number>();
  let polling = true;
  // The newest 25 (at 20/s, several polls see each new one) every 25 ms: a larger page or a
  // tighter loop made the probe itself a large share of the database's work.
  const poller = (async () => {
    while (polling) {
      const page = await call(
        gw,
        '/v1/commissions?limit=25&expand[]=sale',
        {},
        merchant.api_secret,
      ).catch(() => null);
      const now = Date.now();
      for (const c of page?.data ?? []) {
        const chargeId = c.sale?.processor_charge_id as string | undefined;
        if (chargeId && !seenAt.has(chargeId)) seenAt.set(chargeId, now);
      }
      await delay(25);
    }
  })();
  const total = opts.steadyRate * opts.steadySeconds;
  const sends: Promise<void>[] = [];
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    await delay(Math.max(0, start + (i * 1000) / opts.steadyRate - Date.now()));
    const customer = customers[i % customers.length]!;
    sends.push(
      (async () => {
        const id = `ch_${randomUUID()}`;
        await sendProcessor(gw, merchant, 'charge.succeeded', {
          id,
          customer,
          amount: 5_000,
          currency: 'usd',
          tax: 0,
          amount_refunded: 0,
        });
        acceptedAt.set(id, Date.now());
      })(),
    );
  }
  await Promise.all(sends);
  await waitFor(async () => [...acceptedAt.keys()].every((id) => seenAt.has(id)), 30_000, 50).catch(
    () => undefined,
  );
  polling = false;
  await poller;
  const latencies = [...acceptedAt]
    .filter(([id]) => seenAt.has(id))
    .map(([id, at]) => Math.max(0, seenAt.get(id)! - at))
    .sort((a, b) => a - b);
  return {
    ratePerSecond: opts.steadyRate,
    samples: latencies.length,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    missing: acceptedAt.size - latencies.length,
  };
}

async function commissionCount(gw: string, merchant: BenchMerchant) {
  const list = await call(gw, '/v1/commissions?limit=1', {}, merchant.api_secret);
  return list.pagination.total_count as number;
}

export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(everyMs);
  }
}

/** What `--only charges` prints: the phase's figures, CPU and documents per charge. */
export function formatChargesAlone(
  charges: ChargeBenchFigures,
  cpu: Record<string, CpuAccount | undefined>,
): string {
  return [
    formatChargeFigures(charges),
    formatCpuAccounts(cpu),
    formatWriteAccounts({ charge: charges.writes }),
  ].join('\n');
}

/** The drain's and the steady phase's lines (the whole bench prints them too). */
export function formatChargeFigures(charges: ChargeBenchFigures): string {
  return [
    `charges: ${charges.customers} attributed customers; backlog of ${charges.drain.charges} charges: ${charges.drain.measured} commissions in ${charges.drain.seconds.toFixed(1)} s from tracking and commission being ready = ${charges.drain.commissionsPerSecond.toFixed(1)}/s (start-up, off the clock: ${charges.drain.startupSeconds.toFixed(1)} s)`,
    `hook → commission readable at ${charges.steady.ratePerSecond} charges/s: p50 ${charges.steady.p50Ms} ms, p99 ${charges.steady.p99Ms} ms (${charges.steady.samples} samples, ${charges.steady.missing} not seen)`,
  ].join('\n');
}
