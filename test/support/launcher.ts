/**
 * The `npm start` launcher run as a user runs it (its compiled entry, in its own process group),
 * with its own servers and its own `.local` dir (AFF_LOCAL_DIR), not the test run's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '@aff/devstack';

const ROOT = path.resolve(__dirname, '../..');

export interface Launcher {
  child: ChildProcess;
  pid: number;
  url: string;
  localDir: string;
  output: () => string;
}

export interface LauncherOptions {
  /** Its `.local` dir; default a fresh temporary one. */
  localDir?: string;
  /** Added to its environment (and so to every service's). */
  env?: Record<string, string>;
}

/**
 * The PORT chosen here is free only until the launcher binds it, seconds later; a server the
 * launcher starts first (its NATS, say) may be given the same port meanwhile. Then the
 * launcher fails with EADDRINUSE, which is the test's race, not the launcher's: try a new port.
 */
export async function startLauncher(opts: LauncherOptions = {}): Promise<Launcher> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLauncherOnce(opts);
    } catch (error) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

async function startLauncherOnce(opts: LauncherOptions): Promise<Launcher> {
  const localDir = opts.localDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aff-launcher-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Its own servers, as on a fresh clone, not the test run's.
  for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'GATEWAY_URL']) delete env[name];
  env.AFF_LOCAL_DIR = localDir;
  env.PORT = String(await freePort());
  // The healing case probes every 100 ms for up to 15 s; the default merchant limit (45 per
  // 30 s) would answer 429 to those probes after 4.5 s and hide the healed route.
  env.RATE_LIMIT_POINTS = '10000';
  Object.assign(env, opts.env);
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(path.join(ROOT, 'tools/devstack/dist/dev-system.js'))}).runDevSystem()`,
    ],
    // Its own process group, like a terminal's foreground job, so Ctrl-C can be imitated.
    { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!/Affiliate platform is running/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`launcher did not start:\n${output}`);
    await delay(200);
  }
  const runtime = JSON.parse(fs.readFileSync(path.join(localDir, 'runtime.json'), 'utf8')) as {
    gateway_url: string;
  };
  return { child, pid: child.pid!, url: runtime.gateway_url, localDir, output: () => output };
}

/** Whether the launcher process is still running. */
export function running(launcher: Launcher): boolean {
  return launcher.child.exitCode === null && launcher.child.signalCode === null;
}

/** SIGKILLs its whole group (a failed case must not leave a stack running). */
export function killLauncher(launcher: Launcher | undefined): void {
  if (!launcher || !running(launcher)) return;
  try {
    process.kill(-launcher.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
