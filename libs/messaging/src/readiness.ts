import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Readiness of a NATS connection: a round trip to the server within `timeoutMs`. `isClosed()`
 * alone stays false while the client reconnects to a server that is down, so it said "ready"
 * during an outage.
 */
export async function natsReachable(nc: NatsConnection, timeoutMs = 1_000): Promise<boolean> {
  if (nc.isClosed() || nc.isDraining()) return false;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const answered = nc.rtt().then(
    () => true,
    () => false,
  );
  const result = await Promise.race([answered, timedOut]);
  clearTimeout(timer);
  return result;
}
