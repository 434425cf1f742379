import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where deploy/local/install-infra.sh puts what it builds; keep the two in sync. */
export function infraBinDir(): string {
  return join(process.env.AFF_INFRA_HOME ?? join(homedir(), '.cache', 'affiliate-infra'), 'bin');
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds an executable, preferring the infra cache: that is where the pinned
 * nats-server lives, which may differ from one a developer has on PATH.
 */
export function findBinary(name: string): string | undefined {
  const dirs = [infraBinDir(), ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}
