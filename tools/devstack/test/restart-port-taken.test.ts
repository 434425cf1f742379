/**
 * A process killed while running (chaos) whose restart finds its port taken starts once, on a
 * new port: the retry on the new port and the restart timer scheduled by the failed start's exit
 * must not both start it, which left untracked copies running (five web processes outlived a
 * chaos run).
 */
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { startInfra, startSystem, type RunningSystem } from '../src';

/**
 * The live children of this process running `services/<name>/dist/main.js` with the given
 * database prefix (in band, the shared test system's processes are this process's children too).
 */
function copiesOf(name: string, prefix: string): number[] {
  const mine = String(process.pid);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      if (parent !== mine) continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(`services/${name}/dist/main.js`)) continue;
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`MONGO_DB=${prefix}${name}`)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** The health port a process was started with; 0 once it is gone. */
function healthPortOf(pid: number): number {
  let environ: string[];
  try {
    environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return 0;
  }
  const entry = environ.find((e) => e.startsWith('HEALTH_PORT='));
  return Number(entry?.slice('HEALTH_PORT='.length));
}

function occupy(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}

it('restarts a killed process once when its port was taken meanwhile', async () => {
  const infra = await startInfra({ containers: false, ownNats: true, log: () => undefined });
  const notices: string[] = [];
  let system: RunningSystem | undefined;
  let squatter: net.Server | undefined;
  const prefix = `restart${Date.now().toString(36)}_`;
  try {
    system = await startSystem({
      infra,
      restartOnExit: true,
      databasePrefix: prefix,
      onLine: () => undefined,
      onNotice: (line) => notices.push(line),
    });
    const [web] = copiesOf('web', prefix);
    expect(web).toBeDefined();
    const port = healthPortOf(web!);
    process.kill(web!, 'SIGKILL');
    // Taken before the restart (0.5 s after the exit) binds it.
    for (let i = 0; i < 100 && copiesOf('web', prefix).includes(web!); i++) await delay(10);
    // A dying process loses its command line before its sockets: try for a little while.
    for (let i = 0; !squatter; i++)
      squatter = await occupy(port).catch(async (error: unknown) => {
        if (i >= 50) throw error;
        await delay(10);
        return undefined;
      });

    // The restart fails on the port and starts again on a new one; then every timer a failed
    // start's exit scheduled (1 s, 2 s) passes too.
    const deadline = Date.now() + 60_000;
    const ready = async () => {
      const [pid] = system!
        .processes()
        .filter((p) => p.name === 'web')
        .map((p) => p.pid);
      if (pid === undefined || [0, port].includes(healthPortOf(pid))) return false;
      return fetch(`http://127.0.0.1:${healthPortOf(pid)}/readyz`, {
        signal: AbortSignal.timeout(1_000),
      })
        .then((res) => res.ok)
        .catch(() => false);
    };
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`web never came back: ${notices.join('; ')}`);
      await delay(200);
    }
    await delay(5_000);
    expect(notices.filter((n) => n.startsWith('web exited')).length).toBeGreaterThanOrEqual(2);
    const running = copiesOf('web', prefix);
    expect(running).toHaveLength(1);
    expect(
      system
        .processes()
        .filter((p) => p.name === 'web')
        .map((p) => p.pid),
    ).toEqual(running);
    expect(healthPortOf(running[0]!)).not.toBe(port);
  } finally {
    squatter?.close();
    await system?.stop();
    await infra.stop();
  }
}, 180_000);
