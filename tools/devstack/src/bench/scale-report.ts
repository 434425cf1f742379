/** The tables `npm run bench:scale` prints: each figure at scale against the small one. */
import fs from 'node:fs';
import type { RunningSystem } from '../system';
import { SYSTEM_PROCESSES } from '../system';
import type { BenchMerchant } from './money-bench';

export interface Started {
  readyMs: number;
  rssMb: number;
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
  say('| service | ready (ms) | ratio | RSS (MB) | ratio |');
  say('|---|---|---|---|---|');
  for (const name of Object.keys(before.started)) {
    const a = before.started[name]!;
    const b = after.started[name]!;
    say(
      `| ${name} | ${a.readyMs} → ${b.readyMs} | ${ratio(b.readyMs, a.readyMs)} | ${a.rssMb.toFixed(0)} → ${b.rssMb.toFixed(0)} | ${ratio(b.rssMb, a.rssMb)} |${[a.error, b.error].filter(Boolean).join('; ')}`,
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

/** Restarts each service in turn: time until it reports ready, then its RSS. */
export async function restartAll(system: RunningSystem): Promise<Record<string, Started>> {
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
