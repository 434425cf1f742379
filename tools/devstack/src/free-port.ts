import { createServer } from 'node:net';

/**
 * Asks the OS for a port that is free right now. Another process may still take
 * it before our server binds, so callers treat a failed bind as retryable.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() =>
        port ? resolve(port) : reject(new Error('could not read the bound port')),
      );
    });
  });
}
