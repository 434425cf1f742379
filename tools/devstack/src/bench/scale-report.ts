/** The tables `npm run bench:scale` prints: each figure at scale against the small one. */
import fs from 'node:fs';
import type { RunningSystem } from '../system';
import { SYSTEM_PROCESSES } from '../system';
import type { BenchMerchant } from './money-bench';

export interface Started {
  readyMs: number;
  rssMb: number;
  /** CPU the database server used from the start to ready (its own commands and anything else). */
  databaseCpuMs?: number;
  error?: string;
}

export interface Latency {
  first: number;
  median: number;
  /** Requests that failed (status or network error), with what came back. */
  failed: string[];
}

export interface Phase {
  started: Record<string, Started>;
  lists: Record<string, Latency>;
}

function ratio(large: number, small: number): string {
  return `${(large / small).toFixed(2)} x`;
}

export function printPhase(
  say: (line: string) => void,
  label: string,
  before: Phase,
  after: Phase,
): void {
  say(`\nservice restart: 1,000 records → ${label}`);
  say('| service | ready (ms) | ratio | RSS (MB) | ratio | database CPU during the start (ms) |');
  say('|---|---|---|---|---|---|');
  const cpu = (s: Started) => (s.databaseCpuMs === undefined ? '?' : String(s.databaseCpuMs));
  for (const name of Object.keys(before.started)) {
    const a = before.started[name]!;
    const b = after.started[name]!;
    say(
      `| ${name} | ${a.readyMs} → ${b.readyMs} | ${ratio(b.readyMs, a.readyMs)} | ${a.rssMb.toFixed(0)} → ${b.rssMb.toFixed(0)} | ${ratio(b.rssMb, a.rssMb)} | ${cpu(a)} → ${cpu(b)} |${[a.error, b.error].filter(Boolean).join('; ')}`,
    );
  }
  say(`\nlist latency through the gateway at ${label}: median of warm requests (first request)`);
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
}

/**
 * Restarts each service in turn: time from its start until it reports ready, then its RSS. `settled` runs
 * after each, before the next restart (see `databaseSettled`), so each service's start is
 * measured on its own and not behind the previous one's start-up sweeps.
 */
export async function restartAll(
  system: RunningSystem,
  settled: () => Promise<void> = async () => undefined,
  databaseCpu: () => number | undefined = () => undefined,
): Promise<Record<string, Started>> {
  const result: Record<string, Started> = {};
  for (const name of SYSTEM_PROCESSES) {
    await settled();
    // From the start: a stop waits for the run in progress (a sweep, a job) up to its bounds,
    // which is not the time the service takes to become ready.
    let started = Date.now();
    try {
      await system.stopProcess(name);
      started = Date.now();
      const cpuBefore = databaseCpu();
      await system.startProcess(name);
      const readyMs = Date.now() - started;
      const cpuAfter = databaseCpu();
      const pid = system.processes().find((p) => p.name === name)!.pid;
      const databaseCpuMs =
        cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
      result[name] = { readyMs, rssMb: rssMb(pid), databaseCpuMs };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result[name] = {
        readyMs: Date.now() - started,
        rssMb: 0,
        error: `restart failed: ${message}`,
      };
    }
  }
  // The lists measured next should not queue behind the last service's start-up sweeps.
  await settled();
  return result;
}

/** The second start-up sweep runs this long after ready (DEFAULT_SWEEPS.startWindowMs, 12 s). */
const SECOND_SWEEP_AFTER_MS = 13_000;
const QUIET_MS = 200;
const SETTLE_LIMIT_MS = 5 * 60_000;
const IDLE_WINDOW_MS = 500;
/** A quarter of a core: the server's own timers and the services' light polling stay below. */
const IDLE_CPU_SHARE = 0.25;

/**
 * Waits, after the just-restarted service's second start-up sweep has begun, until the database
 * is idle twice in a row: it answers a small read within QUIET_MS and (when `cpuMs` reads the
 * server's CPU time) used under a quarter of a core over the last half second. On the local
 * server a start-up sweep or pass over a collection of 100,000s of documents is a full scan
 * (MongoDB 7 answers it from an index); it used to stop the server answering anyone, which
 * the read caught, and now only takes a core, which the CPU shows. Without this wait the next
 * service's time to ready measured the previous one's scans, not its own start (webhook, which
 * follows commission, measured commission's sweeps of its 200,000 commissions). Returns how
 * long it waited, which the bench prints.
 */
export async function databaseSettled(
  probe: () => Promise<unknown>,
  afterMs = SECOND_SWEEP_AFTER_MS,
  cpuMs: () => number | undefined = () => undefined,
): Promise<number> {
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  let quiet = 0;
  while (quiet < 2 && Date.now() - started < SETTLE_LIMIT_MS) {
    const cpuBefore = cpuMs();
    const windowStart = performance.now();
    const at = performance.now();
    await probe().catch(() => undefined);
    const answered = performance.now() - at <= QUIET_MS;
    const rest = IDLE_WINDOW_MS - (performance.now() - windowStart);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    const cpuAfter = cpuMs();
    const used = cpuBefore === undefined || cpuAfter === undefined ? 0 : cpuAfter - cpuBefore;
    const idle = used <= IDLE_CPU_SHARE * (performance.now() - windowStart);
    quiet = answered && idle ? quiet + 1 : 0;
  }
  return Date.now() - started;
}

function rssMb(pid: number): number {
  const match = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(match?.[1] ?? 0) / 1024;
}

export async function listLatencies(
  gatewayUrl: string,
  merchant: BenchMerchant,
  requests: number,
): Promise<Record<string, Latency>> {
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  // The lists that scan on the local server come last: their scans go on in the database after
  // the gateway's 504 and would slow whatever is measured after them.
  const paths = {
    'GET /v1/referrals?limit=25': '/v1/referrals?limit=25',
    'GET /v1/commissions?limit=25': '/v1/commissions?limit=25',
    'GET /v1/referrals?limit=25&page=100': '/v1/referrals?limit=25&page=100',
    'GET /v1/referrals?limit=25&conversion_state=lead':
      '/v1/referrals?limit=25&conversion_state=lead',
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
