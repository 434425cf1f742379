/**
 * The launcher's directory (`.local` at the repository root, or AFF_LOCAL_DIR): runtime.json
 * while a stack runs, the dev merchant's credentials, and `data/`, where the servers of
 * `npm start` keep their stores across runs. One launcher at a time may use it: two would open
 * the same database file and JetStream store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { onParentExit } from './exit-hooks';

export interface LocalDir {
  root: string;
  data: string;
  runtimeFile: string;
  credentialsFile: string;
  lockFile: string;
}

/** AFF_LOCAL_DIR, relative to the repository root when not absolute, as the ops CLI reads it. */
export function localDirOf(repoRoot: string, env: NodeJS.ProcessEnv = process.env): LocalDir {
  const root = path.resolve(repoRoot, env.AFF_LOCAL_DIR || '.local');
  return {
    root,
    data: path.join(root, 'data'),
    runtimeFile: path.join(root, 'runtime.json'),
    credentialsFile: path.join(root, 'dev-credentials.json'),
    lockFile: path.join(root, 'launcher.pid'),
  };
}

/** The pid of a live launcher holding `dir`, if any (a stale file from a killed one is ignored). */
export function launcherHolding(dir: LocalDir): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(dir.lockFile, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/** Claims `dir` for this process until it exits; throws when a live launcher holds it. */
export function claimLocalDir(dir: LocalDir): void {
  fs.mkdirSync(dir.root, { recursive: true });
  const holder = launcherHolding(dir);
  if (holder !== undefined) {
    throw new Error(
      `another launcher (pid ${holder}) is using ${dir.root}; stop it first (or set AFF_LOCAL_DIR)`,
    );
  }
  fs.rmSync(dir.lockFile, { force: true });
  // `wx`: of two launchers starting at the same moment, one gets EEXIST here.
  fs.writeFileSync(dir.lockFile, String(process.pid), { flag: 'wx' });
  onParentExit(() => {
    if (launcherHolding(dir) === undefined) fs.rmSync(dir.lockFile, { force: true });
  });
}
