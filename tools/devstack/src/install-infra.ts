import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root';

/** Runs deploy/local/install-infra.sh, which is idempotent and prints what it does. */
export function installInfra(): void {
  const script = join(findRepoRoot(), 'deploy', 'local', 'install-infra.sh');
  execFileSync('bash', [script], { stdio: 'inherit' });
}
