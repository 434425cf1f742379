/**
 * The bench's CPU account: time spent by a system process (here, this one) and by a server
 * found by the port on its command line (a child that burns CPU), per event of the window.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { CpuMeter, namesPort } from '../src/bench/cpu-account';
import type { RunningSystem } from '../src/system';

const onLinux = process.platform === 'linux' ? it : it.skip;

/** Spends `ms` of this process's CPU time (not wall time: on a busy machine the two differ). */
function burn(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    for (let i = 0; i < 10_000; i++) Math.sqrt(Math.random());
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

// A "server" named by its port: says it is ready; on a line from the test it spends 400 ms of
// CPU, says so, and idles.
const SERVER = `
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  const start = process.cpuUsage();
  for (;;) {
    for (let i = 0; i < 10000; i++) Math.sqrt(Math.random());
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= 400) break;
  }
  process.stdout.write('done\\n');
  setInterval(() => {}, 1000);
});`;

onLinux('charges each process the CPU it spent in the window, per event', async () => {
  const port = '45' + String(100 + Math.floor(Math.random() * 800));
  const server = spawn(process.execPath, ['-e', SERVER, port], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    const lines = createInterface({ input: server.stdout! });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    expect(await next()).toBe('ready');
    await delay(100); // past its start-up, idle
    const system = {
      processes: () => [{ name: 'tracking', label: 'tracking', pid: process.pid }],
    } as unknown as RunningSystem;
    const meter = new CpuMeter(system, {
      mongoUrl: 'mongodb://127.0.0.1:1/',
      natsUrl: `nats://127.0.0.1:${port}`,
      redisUrl: 'redis://127.0.0.1:2',
      stop: async () => undefined,
    });
    const done = next();
    const window = meter.start();
    server.stdin.write('go\n');
    burn(300);
    expect(await done).toBe('done');
    const account = window.end(10);

    const ms = (name: string) => account.rows.find((r) => r.process === name)?.msPerEvent ?? 0;
    // 300 ms and 400 ms of CPU over 10 events; /proc counts in ticks of 10 ms, and this process
    // also spends some on the test itself.
    // (A hair under the tick, 28.999999999999915, is float arithmetic of 290 ms / 10 events.)
    expect(ms('tracking')).toBeGreaterThanOrEqual(29 - 1e-9);
    expect(ms('nats')).toBeGreaterThanOrEqual(39 - 1e-9);
    expect(ms('nats')).toBeLessThan(50);
    expect(account.rows.find((r) => r.process === 'database')).toBeUndefined();
    expect(account.totalMsPerEvent).toBeCloseTo(
      account.rows.reduce((sum, r) => sum + r.msPerEvent, 0),
      6,
    );
  } finally {
    server.kill('SIGKILL');
  }
});

it('finds a server by its port as an argument or as redis-server titles itself, not in a URL', () => {
  expect(namesPort(['/usr/bin/nats-server', '--port', '4222', ''].join('\0'), '4222')).toBe(true);
  expect(namesPort('/usr/bin/redis-server 127.0.0.1:6379', '6379')).toBe(true);
  expect(namesPort('/usr/bin/redis-server 127.0.0.1:6379', '637')).toBe(false);
  expect(
    namesPort(['node', 'skeleton-gateway.js', '5000', 'nats://127.0.0.1:4222'].join('\0'), '4222'),
  ).toBe(false);
});
