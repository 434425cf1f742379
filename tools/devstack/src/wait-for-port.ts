import { setTimeout as delay } from 'node:timers/promises';
import { connect } from 'node:net';

const RETRY_MS = 100;

function canConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Resolves once something accepts TCP connections on host:port. `signal` lets a
 * caller give up early (e.g. the server already died) without a timer lingering.
 */
export async function waitForPort(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 30_000,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await canConnect(port, host))) {
    signal?.throwIfAborted();
    if (Date.now() >= deadline) {
      throw new Error(`nothing accepted connections on ${host}:${port} within ${timeoutMs} ms`);
    }
    await delay(RETRY_MS);
  }
}
