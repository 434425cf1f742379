/**
 * Starts the gateway and every service as separate Node processes against given servers, waits
 * until each reports ready, and can stop or restart one (fault tests) or all of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';
import { findRepoRoot } from './repo-root';
import type { Infra } from './types';

/** Every process of the system, in start order; the gateway last so it is ready last. */
export const SYSTEM_PROCESSES = [
  'affiliate',
  'tracking',
  'commission',
  'webhook',
  'payout',
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
  /** Processes per service (default 1); replicas share RPCs (queue groups) and durables. */
  replicas?: Partial<Record<SystemProcess, number>>;
}

export interface RunningSystem {
  gatewayUrl: string;
  stop(): Promise<void>;
  /** Stops every replica of `name`, or only replica `index`. */
  stopProcess(name: SystemProcess, signal?: NodeJS.Signals, index?: number): Promise<void>;
  /** Starts every replica of `name` that is not running, or only replica `index`. */
  startProcess(name: SystemProcess, index?: number): Promise<void>;
}

interface ProcessSlot {
  env: NodeJS.ProcessEnv;
  readyUrl: string;
  running?: ManagedProcess;
  exited?: boolean;
}

export async function startSystem(opts: StartSystemOptions): Promise<RunningSystem> {
  const root = findRepoRoot();
  const gatewayPort = opts.gatewayPort || (await freePort());
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
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
          PUBLIC_URL: process.env.PUBLIC_URL ?? gatewayUrl,
          ...(name === 'gateway' ? { PORT: String(port) } : { HEALTH_PORT: String(port) }),
        },
        readyUrl: `http://127.0.0.1:${port}/readyz`,
      });
    }
  }

  const chosen = (name: SystemProcess, index?: number): [ProcessSlot, number][] =>
    (slots.get(name) ?? [])
      .map((slot, i): [ProcessSlot, number] => [slot, i])
      .filter(([, i]) => index === undefined || i === index);

  async function startProcess(name: SystemProcess, index?: number): Promise<void> {
    await Promise.all(
      chosen(name, index)
        .filter(([slot]) => index !== undefined || !slot.running || slot.exited)
        .map(([slot, i]) => startSlot(name, slot, i)),
    );
  }

  async function startSlot(name: SystemProcess, slot: ProcessSlot, index: number): Promise<void> {
    const label = index === 0 ? name : `${name}-${index + 1}`;
    const logFile = opts.logDir ? path.join(opts.logDir, `${label}.log`) : undefined;
    const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
    const recent: string[] = [];
    slot.exited = false;
    slot.running = spawnManaged(
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
    void slot.running.exited.then(() => {
      slot.exited = true;
    });
    await waitUntilReady(label, slot.readyUrl, slot.running, recent);
  }

  async function stopProcess(
    name: SystemProcess,
    signal: NodeJS.Signals = 'SIGTERM',
    index?: number,
  ): Promise<void> {
    await Promise.all(
      chosen(name, index).map(async ([slot]) => {
        await slot.running?.stop(signal);
        slot.exited = true; // stopped, even while its last output is still being read
      }),
    );
  }

  try {
    for (const name of SYSTEM_PROCESSES) await startProcess(name);
  } catch (error) {
    for (const name of [...SYSTEM_PROCESSES].reverse()) await stopProcess(name);
    throw error;
  }

  return {
    gatewayUrl,
    startProcess,
    stopProcess,
    async stop() {
      for (const name of [...SYSTEM_PROCESSES].reverse()) await stopProcess(name);
    },
  };
}

async function waitUntilReady(
  name: string,
  url: string,
  child: ManagedProcess,
  recent: string[],
  timeoutMs = 60_000,
): Promise<void> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) break;
    const ready = await fetch(url)
      .then((res) => res.ok)
      .catch(() => false);
    if (ready) return;
    await delay(150);
  }
  await child.stop('SIGKILL');
  throw new Error(
    `${name} did not become ready (${exited ? 'it exited' : 'timed out'}). Last output:\n${recent.join('\n')}`,
  );
}
