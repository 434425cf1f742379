/** Starts the baseline servers of the benchmark as child processes and waits until they listen. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../free-port';

export interface BenchTarget {
  url: string;
  /** The server's process, for its CPU account. */
  pid: number;
  stop(): void;
}

export async function startBaseline(
  script: 'fixed-json-server' | 'monolith-server' | 'skeleton-gateway' | 'skeleton-service',
  args: string[] = [],
): Promise<BenchTarget> {
  const port = await freePort();
  const child: ChildProcess = fork(path.join(__dirname, `${script}.js`), [String(port), ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => child.kill('SIGTERM'),
  };
}
