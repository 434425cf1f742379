/**
 * CPU time by process over a measured window, divided by the events handled in it: what each
 * figure of the bench costs, and so what bounds it on a machine whose cores all processes share.
 * Read from /proc (Linux); elsewhere the account is empty and the bench says so.
 *
 * The system's processes come from the launcher; the servers are found by their port on the
 * command line (a local nats-server, redis-server or the database's JVM). Servers given through
 * the environment or running in containers are not on this machine's process list, or not
 * ours to count, and are left out.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { Infra } from '../types';
import type { RunningSystem } from '../system';

export interface CpuRow {
  process: string;
  /** CPU milliseconds per event handled in the window. */
  msPerEvent: number;
}

export interface CpuAccount {
  events: number;
  seconds: number;
  rows: CpuRow[];
  totalMsPerEvent: number;
  /** Cores of the machine, and how busy they all were in the window (0..1, from /proc/stat). */
  cores: number;
  machineBusyShare?: number;
  /** This process's CPU per event (the load generator's, autocannon's): not in `rows`. */
  loadGeneratorMsPerEvent: number;
}

/** A process to count by pid (a bench baseline's child), named as its row will be. */
export interface CountedProcess {
  name: string;
  pid: number;
}

type Sample = Map<string, number>;

export class CpuMeter {
  private readonly ticksPerSecond = clockTicks();
  private readonly servers: Map<string, number[]>;

  constructor(
    private readonly system: RunningSystem,
    infra: Infra,
  ) {
    this.servers = new Map([
      ['database', pidsListeningOn(infra.mongoUrl)],
      ['nats', pidsListeningOn(infra.natsUrl)],
      ['redis', pidsListeningOn(infra.redisUrl)],
    ]);
  }

  /**
   * Starts a window; `end(events)` closes it. Processes started meanwhile count from zero.
   * `only`: these processes (and the servers) instead of the system's, e.g. a bench baseline.
   */
  start(only?: CountedProcess[]): { end(events: number): CpuAccount } {
    const before = this.sample(only);
    const machineBefore = machineTicks();
    const loadBefore = process.cpuUsage();
    const startedAt = Date.now();
    return {
      end: (events) => {
        const after = this.sample(only);
        const machineAfter = machineTicks();
        const load = process.cpuUsage(loadBefore);
        const rows = [...after]
          .map(([name, seconds]) => ({
            process: name,
            msPerEvent: ((seconds - (before.get(name) ?? 0)) * 1000) / Math.max(events, 1),
          }))
          .filter((row) => row.msPerEvent > 0.005)
          .sort((a, b) => b.msPerEvent - a.msPerEvent);
        return {
          events,
          seconds: (Date.now() - startedAt) / 1000,
          rows,
          totalMsPerEvent: rows.reduce((sum, row) => sum + row.msPerEvent, 0),
          cores: os.cpus().length,
          machineBusyShare: busyShare(machineBefore, machineAfter),
          loadGeneratorMsPerEvent: (load.user + load.system) / 1000 / Math.max(events, 1),
        };
      },
    };
  }

  private sample(only?: CountedProcess[]): Sample {
    const sample: Sample = new Map();
    const add = (name: string, pid: number) => {
      const seconds = cpuSeconds(pid, this.ticksPerSecond);
      if (seconds !== undefined) sample.set(name, (sample.get(name) ?? 0) + seconds);
    };
    // Replicas of one service add up under its name.
    for (const { name, pid } of only ?? this.system.processes()) add(name, pid);
    for (const [name, pids] of this.servers) for (const pid of pids) add(name, pid);
    return sample;
  }
}

export function formatCpuAccounts(accounts: Record<string, CpuAccount | undefined>): string {
  const entries = Object.entries(accounts).filter(
    (entry): entry is [string, CpuAccount] => entry[1] !== undefined && entry[1].rows.length > 0,
  );
  if (!entries.length) return 'CPU per event by process: not available (no /proc)';
  const lines = ['CPU ms per event by process (all processes share the cores):'];
  for (const [name, account] of entries) {
    const parts = account.rows.map((row) => `${row.process} ${row.msPerEvent.toFixed(2)}`);
    // The machine's busy share says whether the cores were full; the bench's own load
    // generator and other work on the machine are in it but not in the total.
    const busy =
      account.machineBusyShare === undefined
        ? ''
        : `; cores ${(account.machineBusyShare * 100).toFixed(0)} % busy, load generator ${account.loadGeneratorMsPerEvent.toFixed(2)} not in the total`;
    lines.push(
      `  ${name} (${account.events} in ${account.seconds.toFixed(1)} s): total ${account.totalMsPerEvent.toFixed(2)} = ${parts.join(', ')}${busy}`,
    );
  }
  return lines.join('\n');
}

function cpuSeconds(pid: number, ticksPerSecond: number): number | undefined {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/** All cores' busy and total ticks since boot (the `cpu` line of /proc/stat). */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, t) => sum + t, 0);
    // idle and iowait are the 4th and 5th fields.
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

function busyShare(
  before: ReturnType<typeof machineTicks>,
  after: ReturnType<typeof machineTicks>,
): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.busy - before.busy) / (after.total - before.total);
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Whether a command line names the port as an argument of its own (`--port 4222`), or as a
 * bare `host:port`: redis-server rewrites its command line to `redis-server 127.0.0.1:6379`, one
 * string with spaces. A URL (`nats://127.0.0.1:4222`, a client's argument) does not count.
 */
export function namesPort(cmdline: string, port: string): boolean {
  return cmdline
    .split(/[\0\s]+/)
    .some((arg) => arg === port || (!arg.includes('/') && arg.endsWith(`:${port}`)));
}

/** Local processes whose command line names the URL's port (namesPort). */
function pidsListeningOn(url: string): number[] {
  const port = new URL(url).port;
  if (!port) return [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return entries
    .filter((pid) => {
      try {
        return namesPort(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'), port);
      } catch {
        return false;
      }
    })
    .map(Number);
}
