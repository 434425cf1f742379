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
}

export interface RunningSystem {
  gatewayUrl: string;
  stop(): Promise<void>;
  stopProcess(name: SystemProcess, signal?: NodeJS.Signals): Promise<void>;
  startProcess(name: SystemProcess): Promise<void>;
}

interface ProcessSlot {
  env: NodeJS.ProcessEnv;
  readyUrl: string;
  running?: ManagedProcess;
}

export async function startSystem(opts: StartSystemOptions): Promise<RunningSystem> {
  const root = findRepoRoot();
  const gatewayPort = opts.gatewayPort || (await freePort());
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const slots = new Map<SystemProcess, ProcessSlot>();
  for (const name of SYSTEM_PROCESSES) {
    const port = name === 'gateway' ? gatewayPort : await freePort();
    slots.set(name, {
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

  async function startProcess(name: SystemProcess): Promise<void> {
    const slot = slots.get(name)!;
    const logFile = opts.logDir ? path.join(opts.logDir, `${name}.log`) : undefined;
    const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
    const recent: string[] = [];
    slot.running = spawnManaged(
      name,
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
    await waitUntilReady(name, slot.readyUrl, slot.running, recent);
  }

  async function stopProcess(
    name: SystemProcess,
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<void> {
    await slots.get(name)?.running?.stop(signal);
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
