import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { onParentExit } from './exit-hooks';

export interface ManagedProcess {
  name: string;
  pid: number | undefined;
  /** Sends `signal`, then SIGKILL if the process is still alive after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
  /** Exit code, or null when the process died from a signal or never started. */
  exited: Promise<number | null>;
}

export interface SpawnManagedOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onLine?: (line: string) => void;
}

/** How long `exited` waits for the last output after exit; a grandchild may hold the pipes open. */
const FLUSH_MS = 200;

function forwardLines(stream: Readable | null, onLine: (line: string) => void): Promise<void> {
  if (!stream) return Promise.resolve();
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', onLine);
  return new Promise((resolve) => lines.once('close', resolve));
}

export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  opts: SpawnManagedOptions = {},
): ManagedProcess {
  const onLine = opts.onLine ?? (() => undefined);
  const child = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const drained = Promise.all([
    forwardLines(child.stdout, onLine),
    forwardLines(child.stderr, onLine),
  ]);

  let alive = true;
  // 'exit' handlers must be synchronous, so the only sure thing left is SIGKILL.
  const unregister = onParentExit(() => {
    if (alive) child.kill('SIGKILL');
  });
  const exitCode = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    // A spawn failure (e.g. ENOENT) emits 'error' and possibly no 'exit'.
    child.once('error', (err) => {
      onLine(`${name}: ${err.message}`);
      resolve(null);
    });
  }).finally(() => {
    alive = false;
    unregister();
  });
  // Callers read the output after exit to explain failures, so let it arrive first.
  const exited = exitCode.then(async (code) => {
    await Promise.race([drained, delay(FLUSH_MS, undefined, { ref: false })]);
    return code;
  });

  async function stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 5_000): Promise<void> {
    if (!alive) return;
    child.kill(signal);
    const escalate = setTimeout(() => alive && child.kill('SIGKILL'), timeoutMs);
    await exitCode;
    clearTimeout(escalate);
  }

  return { name, pid: child.pid, stop, exited };
}
