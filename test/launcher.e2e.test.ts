/**
 * The `npm start` launcher as a user meets it: it heals a service killed with SIGKILL, and
 * Ctrl-C (SIGINT to its process group) or SIGINT/SIGTERM to it alone stops every process it
 * started within 5 s. Each case runs its own launcher with its own servers and `.local` dir.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from './support/http';
import { killLauncher, startLauncher, type Launcher } from './support/launcher';
import { eventually } from './support/processor';

/** Direct children of `pid` with their command lines. */
function childrenOf(pid: number): { pid: number; args: string }[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], {
    encoding: 'utf8',
  }).trim();
  return out
    ? out.split('\n').map((line) => {
        const [, p, args] = /^\s*(\d+)\s+(.*)$/.exec(line)!;
        return { pid: Number(p), args: args! };
      })
    : [];
}

/** Alive means not gone and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Sends the signal and returns how long the launcher took to exit, and what it left behind. */
async function stopAndMeasure(
  launcher: Launcher,
  signal: NodeJS.Signals,
  target: 'group' | 'launcher',
): Promise<{ ms: number; code: number | null; leftOver: string[] }> {
  // The servers and the gateway plus five services (a process the launcher is restarting right
  // now comes back within its backoff).
  const children = await eventually(async () => {
    const now = childrenOf(launcher.pid);
    return now.length >= 9 ? now : undefined;
  }, 15_000).catch((error: unknown) => {
    throw new Error(
      `${String(error)}; children: ${JSON.stringify(childrenOf(launcher.pid))}\n${launcher.output()}`,
    );
  });
  expect(children.length).toBeGreaterThanOrEqual(9);
  const exited = new Promise<number | null>((resolve) =>
    launcher.child.once('exit', (code) => resolve(code)),
  );
  const startedAt = Date.now();
  process.kill(target === 'group' ? -launcher.pid : launcher.pid, signal);
  const code = await Promise.race([exited, delay(15_000, 'timeout' as const, { ref: false })]);
  const ms = Date.now() - startedAt;
  if (code === 'timeout') {
    process.kill(-launcher.pid, 'SIGKILL');
    throw new Error(`launcher still running 15 s after ${signal}:\n${launcher.output()}`);
  }
  await delay(200);
  const leftOver = children.filter((c) => alive(c.pid)).map((c) => `${c.pid} ${c.args}`);
  for (const c of children) if (alive(c.pid)) process.kill(c.pid, 'SIGKILL');
  expect(fs.existsSync(path.join(launcher.localDir, 'runtime.json'))).toBe(false);
  fs.rmSync(launcher.localDir, { recursive: true, force: true });
  return { ms, code, leftOver };
}

describe('npm start launcher', () => {
  let launcher: Launcher | undefined;
  afterEach(() => {
    killLauncher(launcher);
    launcher = undefined;
  });

  it('restarts a service killed with SIGKILL; its routes answer again within 15 s; SIGTERM stops all within 5 s', async () => {
    launcher = await startLauncher();
    const { api_secret: secret } = JSON.parse(
      fs.readFileSync(path.join(launcher.localDir, 'dev-credentials.json'), 'utf8'),
    ) as { api_secret: string };
    const list = () => request('GET', '/v1/affiliates', { secret, baseUrl: launcher!.url });
    expect((await list()).status).toBe(200);

    // Readiness follows the servers: a frozen NATS or MongoDB makes it fail, and it recovers
    // by itself once they answer again.
    const readyz = async (url: string) =>
      (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status;
    const affiliateHealth = Number(
      /"service":"affiliate","healthPort":(\d+)/.exec(launcher.output())?.[1],
    );
    for (const server of ['nats-server', 'mongo-java-server']) {
      const frozen = childrenOf(launcher.pid).find((c) => c.args.includes(server));
      expect(frozen).toBeDefined();
      for (const url of [`${launcher.url}/readyz`, `http://127.0.0.1:${affiliateHealth}/readyz`])
        expect(await readyz(url)).toBe(200);
      process.kill(frozen!.pid, 'SIGSTOP');
      try {
        // Within a few seconds: a loaded machine may still be finishing a check begun before.
        for (const url of [`${launcher.url}/readyz`, `http://127.0.0.1:${affiliateHealth}/readyz`])
          await eventually(async () => ((await readyz(url)) === 503 ? true : undefined), 10_000);
      } finally {
        process.kill(frozen!.pid, 'SIGCONT');
      }
      for (const url of [`${launcher.url}/readyz`, `http://127.0.0.1:${affiliateHealth}/readyz`])
        await eventually(async () => ((await readyz(url)) === 200 ? true : undefined), 10_000);
    }
    expect((await list()).status).toBe(200);

    const affiliate = childrenOf(launcher.pid).find((c) =>
      c.args.includes(path.join('services', 'affiliate', 'dist', 'main.js')),
    );
    expect(affiliate).toBeDefined();
    const killedAt = Date.now();
    process.kill(affiliate!.pid, 'SIGKILL');
    // The route fails while it is down (proves the kill took effect) ... Probes go out every
    // 100 ms without waiting for each other: a probe sent as the kill lands may wait out the
    // gateway's RPC time-out, and must not hold back the probes that see the replacement.
    let sawFailure = false;
    let healedAfter: number | undefined;
    const probes: Promise<void>[] = [];
    // What each probe saw (sent → answered: status), printed if the route does not heal.
    const timeline: string[] = [];
    while (Date.now() - killedAt < 15_000 && healedAfter === undefined) {
      const sentAt = Date.now() - killedAt;
      probes.push(
        list()
          .catch(() => ({ status: 0 }))
          .then(({ status }) => {
            timeline.push(`${sentAt}→${Date.now() - killedAt} ms: ${status}`);
            if (status !== 200) sawFailure = true;
            else if (sawFailure) healedAfter ??= Date.now() - killedAt;
          }),
      );
      await delay(100);
    }
    await Promise.all(probes);
    expect(sawFailure).toBe(true);
    // ... and answers again within 15 s, from a new process, said in one line.
    if (healedAfter === undefined)
      throw new Error(
        `no answer within 15 s of the kill; probes:\n${timeline.join('\n')}\n` +
          `launcher output:\n${launcher.output().slice(-6_000)}`,
      );
    expect(healedAfter).toBeLessThan(15_000);
    expect(launcher.output()).toMatch(
      /\[start\] affiliate exited unexpectedly \(killed by a signal\); restarting in 0\.5 s/,
    );
    const replacement = childrenOf(launcher.pid).find((c) =>
      c.args.includes(path.join('services', 'affiliate', 'dist', 'main.js')),
    );
    expect(replacement?.pid).not.toBe(affiliate!.pid);

    const { ms, code, leftOver } = await stopAndMeasure(launcher, 'SIGTERM', 'launcher');
    expect(leftOver).toEqual([]);
    expect(code).toBe(0);
    expect(ms).toBeLessThanOrEqual(5_000);
  }, 180_000);

  it('Ctrl-C (SIGINT to the process group) stops every process within 5 s', async () => {
    launcher = await startLauncher();
    const { ms, leftOver } = await stopAndMeasure(launcher, 'SIGINT', 'group');
    expect(leftOver).toEqual([]);
    expect(ms).toBeLessThanOrEqual(5_000);
  }, 180_000);

  it('SIGINT to the launcher alone stops every process within 5 s, with no restarts', async () => {
    launcher = await startLauncher();
    const { ms, code, leftOver } = await stopAndMeasure(launcher, 'SIGINT', 'launcher');
    expect(leftOver).toEqual([]);
    expect(code).toBe(0);
    expect(ms).toBeLessThanOrEqual(5_000);
    expect(launcher.output()).not.toMatch(/exited unexpectedly/);
  }, 180_000);
});
