/**
 * The bench's CPU account: time spent by a system process (here, this one) and by a server
 * found by the port on its command line (a child that burns CPU), per event of the window.
 */
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { CpuMeter } from '../src/bench/cpu-account';
import type { RunningSystem } from '../src/system';

const onLinux = process.platform === 'linux' ? it : it.skip;

function burn(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) Math.sqrt(Math.random());
}

onLinux('charges each process the CPU it spent in the window, per event', async () => {
  const port = '45' + String(100 + Math.floor(Math.random() * 800));
  // A "server" named by its port: busy for 400 ms once the window is open, then idle.
  const server = spawn(
    process.execPath,
    [
      '-e',
      'process.stdin.once("data", () => { const t = Date.now() + 400; while (Date.now() < t); setInterval(() => {}, 1000); })',
      port,
    ],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  try {
    await delay(300); // started and idle
    const system = {
      processes: () => [{ name: 'tracking', label: 'tracking', pid: process.pid }],
    } as unknown as RunningSystem;
    const meter = new CpuMeter(system, {
      mongoUrl: 'mongodb://127.0.0.1:1/',
      natsUrl: `nats://127.0.0.1:${port}`,
      redisUrl: 'redis://127.0.0.1:2',
      stop: async () => undefined,
    });
    const window = meter.start();
    server.stdin.write('go\n');
    burn(300);
    await delay(500); // the server's 400 ms
    const account = window.end(10);

    const ms = (name: string) => account.rows.find((r) => r.process === name)?.msPerEvent ?? 0;
    // 300 ms and 400 ms over 10 events, give or take the clock's ticks and the test's own work.
    expect(ms('tracking')).toBeGreaterThanOrEqual(25);
    expect(ms('nats')).toBeGreaterThanOrEqual(35);
    expect(ms('nats')).toBeLessThan(60);
    expect(account.rows.find((r) => r.process === 'database')).toBeUndefined();
    expect(account.totalMsPerEvent).toBeCloseTo(
      account.rows.reduce((sum, r) => sum + r.msPerEvent, 0),
      6,
    );
  } finally {
    server.kill('SIGKILL');
  }
});
