/**
 * Starts the gateway and every service as separate Node processes against given servers, waits
 * until each reports ready, and can stop or restart one (fault tests) or all of them. With
 * `restartOnExit` (the `npm start` launcher) a process that exits on its own is started again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';
import { findRepoRoot } from './repo-root';
import { waitUntilReady } from './wait-until-ready';
import type { Infra } from './types';

/** Every process of the system, in start order; the gateway last so it is ready last. */
export const SYSTEM_PROCESSES = [
  'affiliate',
  'tracking',
  'commission',
  'webhook',
  'payout',
  'web',
  'gateway',
] as const;
export type SystemProcess = (typeof SYSTEM_PROCESSES)[number];

export interface StartSystemOptions {
  infra: Pick<Infra, 'mongoUrl' | 'natsUrl' | 'redisUrl'>;
  /** Gateway port; 0 picks a free one. */
  gatewayPort?: number;
  /** Extra environment for every process (e.g. LOG_LEVEL, RPC_TIMEOUT_MS). */
  env?: NodeJS.ProcessEnv;
  /** Per-process log files go here; without it, output goes to `onLine`. */
  logDir?: string;
  onLine?: (process: SystemProcess, line: string) => void;
  /**
   * Gives each service its own databases, `<prefix><service>` (the gateway keeps its default:
   * merchants are created in it by the ops CLI). Two systems sharing one MongoDB server must not
   * share a service's collections: each one's outbox sweep would relay the other's pending
   * events to its own NATS, where the other system never sees them.
   */
  databasePrefix?: string;
  /** Processes per service (default 1); replicas share RPCs (queue groups) and durables. */
  replicas?: Partial<Record<SystemProcess, number>>;
  /**
   * Start a process again when it exits without being asked to (crash, `kill -9`), after a
   * backoff: 0.5 s doubling to 10 s, back to 0.5 s once it stayed up 30 s. `stopProcess` and
   * `stop` never trigger it.
   */
  restartOnExit?: boolean;
  /** One line per restart decision; default stderr. */
  onNotice?: (line: string) => void;
}

export interface RunningSystem {
  gatewayUrl: string;
  /** The gateway's operations port (`/metrics`, `/healthz`, `/readyz`), never public. */
  gatewayOpsUrl: string;
  stop(): Promise<void>;
  /** Stops every replica of `name`, or only replica `index`. */
  stopProcess(name: SystemProcess, signal?: NodeJS.Signals, index?: number): Promise<void>;
  /** Starts every replica of `name` that is not running, or only replica `index`. */
  startProcess(name: SystemProcess, index?: number): Promise<void>;
  /** Process ids of the processes running now. */
  pids(): number[];
  /** The processes running now, by label (`tracking`, `tracking-2`, …): fault tests pick from it. */
  processes(): { name: SystemProcess; label: string; pid: number }[];
}

interface ProcessSlot {
  env: NodeJS.ProcessEnv;
  readyUrl: string;
  running?: ManagedProcess;
  exited?: boolean;
  /** Started and not deliberately stopped: an exit now is unexpected. */
  wanted?: boolean;
  restartTimer?: NodeJS.Timeout;
  backoffMs?: number;
  /** A start (with its retries on a new port) is under way. */
  starting?: boolean;
}

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
const STABLE_AFTER_MS = 30_000;
/** Services stop themselves within SHUTDOWN_TIMEOUT_MS (3 s); past this they are killed. */
const STOP_TIMEOUT_MS = 4_000;

/**
 * Starts every process. The gateway's port is chosen free and then bound by the gateway; when
 * another process took it in between (tests start systems side by side), the whole system is
 * started again on a new one, as every service was told the gateway's URL.
 */
export async function startSystem(opts: StartSystemOptions): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSystemOnce(opts);
    } catch (error) {
      const portTaken = /EADDRINUSE/.test(String((error as Error).message));
      if (!portTaken || opts.gatewayPort || attempt >= 3) throw error;
    }
  }
}

async function startSystemOnce(opts: StartSystemOptions): Promise<RunningSystem> {
  const root = findRepoRoot();
  const gatewayPort = opts.gatewayPort || (await freePort());
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const gatewayOpsPort = await freePort();
  const slots = new Map<SystemProcess, ProcessSlot[]>();
  for (const name of SYSTEM_PROCESSES) {
    const count = name === 'gateway' ? 1 : Math.max(1, opts.replicas?.[name] ?? 1);
    slots.set(name, []);
    for (let index = 0; index < count; index++) {
      const port = name === 'gateway' ? gatewayPort : await freePort();
      slots.get(name)!.push({
        env: {
          // Everything runs on 127.0.0.1 here, receivers included; the environment may override.
          ...(name === 'webhook' ? { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } : {}),
          ...process.env,
          ...opts.env,
          OTEL_SERVICE_NAME: name,
          NATS_URL: opts.infra.natsUrl,
          MONGO_URL: opts.infra.mongoUrl,
          REDIS_URL: opts.infra.redisUrl,
          ...(opts.databasePrefix && name !== 'gateway'
            ? { MONGO_DB: `${opts.databasePrefix}${name}` }
            : {}),
          PUBLIC_URL: process.env.PUBLIC_URL ?? gatewayUrl,
          ...(name === 'gateway'
            ? { PORT: String(port), OPS_PORT: String(gatewayOpsPort) }
            : { HEALTH_PORT: String(port) }),
        },
        readyUrl: `http://127.0.0.1:${port}/readyz`,
      });
    }
  }

  let systemStopping = false;
  const notice = opts.onNotice ?? ((line: string) => process.stderr.write(`${line}\n`));

  const chosen = (name: SystemProcess, index?: number): [ProcessSlot, number][] =>
    (slots.get(name) ?? [])
      .map((slot, i): [ProcessSlot, number] => [slot, i])
      .filter(([, i]) => index === undefined || i === index);

  async function startProcess(name: SystemProcess, index?: number): Promise<void> {
    await Promise.all(
      chosen(name, index)
        .filter(([slot]) => index !== undefined || !slot.running || slot.exited)
        .map(([slot, i]) => {
          clearTimeout(slot.restartTimer);
          slot.wanted = true;
          return startSlot(name, slot, i);
        }),
    );
  }

  /**
   * A free port may be taken by another process before ours binds it (tests start systems side
   * by side): a service whose health port turned out taken starts again on a new one.
   */
  async function startSlot(name: SystemProcess, slot: ProcessSlot, index: number): Promise<void> {
    slot.starting = true;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await startSlotOnce(name, slot, index);
        } catch (error) {
          const portTaken = /EADDRINUSE/.test(String((error as Error).message));
          if (!portTaken || name === 'gateway' || attempt >= 3) throw error;
          const port = await freePort();
          slot.env = { ...slot.env, HEALTH_PORT: String(port) };
          slot.readyUrl = `http://127.0.0.1:${port}/readyz`;
        }
      }
    } finally {
      slot.starting = false;
    }
  }

  async function startSlotOnce(
    name: SystemProcess,
    slot: ProcessSlot,
    index: number,
  ): Promise<void> {
    const label = index === 0 ? name : `${name}-${index + 1}`;
    const logFile = opts.logDir ? path.join(opts.logDir, `${label}.log`) : undefined;
    const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
    const recent: string[] = [];
    slot.exited = false;
    const startedAt = Date.now();
    const child = spawnManaged(
      label,
      process.execPath,
      [path.join(root, 'services', name, 'dist', 'main.js')],
      {
        env: slot.env,
        cwd: root,
        onLine: (line) => {
          recent.push(line);
          if (recent.length > 40) recent.shift();
          if (sink) sink.write(`${line}\n`);
          else opts.onLine?.(name, line);
        },
      },
    );
    slot.running = child;
    void child.exited.then((code) => {
      if (slot.running !== child) return;
      slot.exited = true;
      if (opts.restartOnExit && slot.wanted && !systemStopping)
        scheduleRestart(name, slot, index, label, code, Date.now() - startedAt);
    });
    await waitUntilReady(label, slot.readyUrl, child, recent);
  }

  function scheduleRestart(
    name: SystemProcess,
    slot: ProcessSlot,
    index: number,
    label: string,
    code: number | null,
    upMs: number,
  ): void {
    const backoff =
      upMs >= STABLE_AFTER_MS || slot.backoffMs === undefined ? FIRST_BACKOFF_MS : slot.backoffMs;
    slot.backoffMs = Math.min(backoff * 2, MAX_BACKOFF_MS);
    notice(
      `${label} exited unexpectedly (${code === null ? 'killed by a signal' : `code ${code}`}); restarting in ${backoff / 1000} s`,
    );
    const restart = () => {
      // Running again: a start whose port was taken retries at once on a new one, and a second
      // process beside it would be untracked (never stopped, never faulted).
      if (!slot.wanted || systemStopping || !slot.exited) return;
      if (slot.starting) {
        // That retry is still under way; look again once it has succeeded or given up.
        slot.restartTimer = setTimeout(restart, backoff);
        slot.restartTimer.unref();
        return;
      }
      // A start that fails kills its process, whose exit schedules the next attempt.
      startSlot(name, slot, index).catch(() => undefined);
    };
    clearTimeout(slot.restartTimer);
    slot.restartTimer = setTimeout(restart, backoff);
    slot.restartTimer.unref();
  }

  async function stopProcess(
    name: SystemProcess,
    signal: NodeJS.Signals = 'SIGTERM',
    index?: number,
  ): Promise<void> {
    await Promise.all(
      chosen(name, index).map(async ([slot]) => {
        slot.wanted = false;
        clearTimeout(slot.restartTimer);
        await slot.running?.stop(signal, STOP_TIMEOUT_MS);
        slot.exited = true; // stopped, even while its last output is still being read
      }),
    );
  }

  /**
   * The gateway first, so no new request starts an RPC; then every service at once, each
   * draining its own work (in-flight RPCs, held messages, outbox) within its deadline.
   */
  async function stopAll(): Promise<void> {
    systemStopping = true;
    await stopProcess('gateway');
    await Promise.all(
      SYSTEM_PROCESSES.filter((name) => name !== 'gateway').map((name) => stopProcess(name)),
    );
  }

  try {
    for (const name of SYSTEM_PROCESSES) await startProcess(name);
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    gatewayUrl,
    gatewayOpsUrl: `http://127.0.0.1:${gatewayOpsPort}`,
    startProcess,
    stopProcess,
    stop: stopAll,
    pids() {
      return [...slots.values()].flat().flatMap((slot) => {
        const pid = slot.running && !slot.exited ? slot.running.pid : undefined;
        return pid === undefined ? [] : [pid];
      });
    },
    processes() {
      return [...slots.entries()].flatMap(([name, list]) =>
        list.flatMap((slot, index) => {
          const pid = slot.running && !slot.exited ? slot.running.pid : undefined;
          const label = index === 0 ? name : `${name}-${index + 1}`;
          return pid === undefined ? [] : [{ name, label, pid }];
        }),
      );
    },
  };
}
