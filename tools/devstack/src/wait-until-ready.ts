/**
 * Waits until a started process answers its readiness URL. Only that child's answer counts (the
 * port may have been taken by another process first); a child that exits or times out is killed
 * and reported with its last output.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ManagedProcess } from './managed-process';
import { listensOn } from './port-owner';

export async function waitUntilReady(
  name: string,
  url: string,
  child: ManagedProcess,
  recent: string[],
  timeoutMs = 60_000,
): Promise<void> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) break;
    // Bounded: a port taken by something that accepts and never answers would hang the wait.
    const ready = await fetch(url, { signal: AbortSignal.timeout(2_000) })
      .then((res) => res.ok)
      .catch(() => false);
    // Only our child's answer counts: another process may have taken the port first.
    if (
      ready &&
      (child.pid === undefined || listensOn(child.pid, Number(new URL(url).port)) !== false)
    )
      return;
    await delay(150);
  }
  await child.stop('SIGKILL');
  throw new Error(
    `${name} did not become ready (${exited ? 'it exited' : 'timed out'}). Last output:\n${recent.join('\n')}`,
  );
}
