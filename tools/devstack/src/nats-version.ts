import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root';

/** Same fallback as deploy/local/install-infra.sh, for before docker-compose.yml exists. */
export const DEFAULT_NATS_VERSION = '2.11.9';

/** The nats image tag pinned in docker-compose.yml, so containers and local binaries agree. */
export function pinnedNatsVersion(root: string = findRepoRoot()): string {
  try {
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const match = /^\s*image:\s*["']?nats:([^"'\s-]+)/m.exec(compose);
    return match?.[1] ?? DEFAULT_NATS_VERSION;
  } catch {
    return DEFAULT_NATS_VERSION;
  }
}
