import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function isRepoRoot(dir: string): boolean {
  if (existsSync(join(dir, 'docker-compose.yml'))) return true;
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      workspaces?: unknown;
    };
    return pkg.workspaces !== undefined;
  } catch {
    return false;
  }
}

/** Walks up from this file, so it works from src/ (ts-jest, swc) and dist/ alike. */
export function findRepoRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isRepoRoot(dir)) return dir;
    if (dirname(dir) === dir)
      throw new Error(
        `no repository root (docker-compose.yml or workspaces package.json) above ${start}`,
      );
  }
}
