import type { Connection } from 'mongoose';

/**
 * Readiness of a MongoDB connection: a `ping` answered within `timeoutMs`. `readyState` lags
 * behind an outage by the driver's heartbeat and server-selection timeouts (tens of seconds).
 */
export async function mongoReachable(conn: Connection, timeoutMs = 1_000): Promise<boolean> {
  if (conn.readyState !== 1 || !conn.db) return false;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const answered = conn.db
    .admin()
    .ping()
    .then(
      () => true,
      () => false,
    );
  const result = await Promise.race([answered, timedOut]);
  clearTimeout(timer);
  return result;
}
