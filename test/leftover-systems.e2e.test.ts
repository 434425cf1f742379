/**
 * The end-of-file sweep of isolated systems: a system still starting when its file ends (a
 * `beforeAll` that timed out) is waited for and stopped, not left running beside later files.
 */
import net from 'node:net';
import { startIsolatedSystem, stopLeftoverIsolatedSystems } from './support/isolated-system';

it('stops a system whose start nobody awaited, once it is up, and only once', async () => {
  const starting = startIsolatedSystem();
  await stopLeftoverIsolatedSystems();
  const iso = await starting;
  // Stopped: the gateway no longer answers, and its NATS server is gone.
  await expect(fetch(`${iso.system.gatewayUrl}/health`)).rejects.toThrow();
  const nats = new URL(iso.infra.natsUrl);
  await expect(connects(nats.hostname, Number(nats.port))).resolves.toBe(false);
  // The file's own hook calling stop again is harmless.
  await iso.stop();
  await stopLeftoverIsolatedSystems();
}, 120_000);

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
