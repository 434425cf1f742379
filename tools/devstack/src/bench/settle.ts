/**
 * Waits until the machine's CPUs are mostly idle: each phase of the bench sets off background
 * work (counters, webhooks, payouts follow every referral and commission), and a measurement
 * that starts before that has drained measures the leftovers of the phase before it. Gives up
 * after `timeoutMs` (a machine shared with other work may never be idle) and says so.
 */
import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface SettleOptions {
  /** Share of all CPU time busy (0..1) below which the machine counts as idle. */
  maxBusy?: number;
  /** How long it must stay below that. */
  forMs?: number;
  timeoutMs?: number;
}

/** Resolves with how long it waited; `settled: false` when it gave up. */
export async function settleCpu(
  opts: SettleOptions = {},
): Promise<{ waitedMs: number; settled: boolean }> {
  const maxBusy = opts.maxBusy ?? 0.35;
  const forMs = opts.forMs ?? 2_000;
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const started = Date.now();
  let quietSince: number | null = null;
  let previous = cpuTimes();
  while (Date.now() - started < timeoutMs) {
    await delay(500);
    const current = cpuTimes();
    const total = current.total - previous.total;
    const busy = total > 0 ? 1 - (current.idle - previous.idle) / total : 0;
    previous = current;
    if (busy > maxBusy) quietSince = null;
    else if (quietSince === null) quietSince = Date.now();
    else if (Date.now() - quietSince >= forMs)
      return { waitedMs: Date.now() - started, settled: true };
  }
  return { waitedMs: Date.now() - started, settled: false };
}

/** "settled in 2.5 s", or that it gave up: for the bench's progress lines. */
export function describeSettle(settle: { waitedMs: number; settled: boolean }): string {
  const waited = `settled in ${(settle.waitedMs / 1000).toFixed(1)} s`;
  return settle.settled ? waited : `${waited} (not idle; measuring anyway)`;
}

/** Jiffies of all CPUs together, from the first line of /proc/stat (idle includes iowait). */
function cpuTimes(): { total: number; idle: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1);
  const values = fields.map(Number);
  const total = values.reduce((sum, v) => sum + v, 0);
  return { total, idle: (values[3] ?? 0) + (values[4] ?? 0) };
}
