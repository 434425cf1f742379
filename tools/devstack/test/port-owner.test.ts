/**
 * A readiness answer counts only when it comes from the child that was started: a port chosen
 * free may be taken by another process before the child binds it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, startInfra, startSystem } from '../src';
import { listensOn } from '../src/port-owner';

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

describe('listensOn', () => {
  it('tells whether a process holds the listening socket of a port', async () => {
    const server = http.createServer();
    const port = await listen(server);
    try {
      expect(listensOn(process.pid, port)).toBe(true);
      expect(listensOn(process.pid, await freePort())).toBe(false);
      // Another process (pid 1 here is never this one) does not hold our port.
      expect(listensOn(1, port)).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe('startSystem on a gateway port another process took', () => {
  it('does not take the other process for its gateway, and says why it failed', async () => {
    // An impostor that answers every readiness probe, as another system's gateway would.
    const impostor = http.createServer((_req, res) => res.writeHead(200).end('{"ready":true}'));
    const port = await listen(impostor);
    // A NATS of its own: on the shared one, this system's services would answer the shared
    // system's requests (from their own databases) until the gateway failed.
    const infra = await startInfra({ containers: false, ownNats: true, log: () => undefined });
    try {
      await expect(
        startSystem({
          infra,
          gatewayPort: port,
          databasePrefix: `portclash${Date.now().toString(36)}_`,
        }),
      ).rejects.toThrow(/gateway did not become ready \(it exited\)[\s\S]*EADDRINUSE/);
    } finally {
      impostor.close();
      await infra.stop();
    }
  }, 120_000);
});
