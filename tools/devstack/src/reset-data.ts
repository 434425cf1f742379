/**
 * `npm run reset`: wipes what `npm start` keeps between runs (the servers' stores in
 * `.local/data/` and the dev merchant's credentials), in `.local` or AFF_LOCAL_DIR. It asks
 * first on a terminal; `--yes` skips the question, and without a terminal it is required, so a
 * script can never wipe the data by accident. It refuses while a launcher uses the directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { launcherHolding, localDirOf } from './local-dir';
import { findRepoRoot } from './repo-root';

const USAGE = 'usage: npm run reset [-- --yes]';

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^(y|yes)$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/** Exit code: 0 wiped (or nothing to wipe), 1 refused (stack running or not confirmed), 2 usage. */
export async function resetData(args: string[]): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const complain = (line: string) => process.stderr.write(`${line}\n`);
  const yes = args.includes('--yes') || args.includes('-y');
  const unknown = args.filter((arg) => !['--yes', '-y'].includes(arg));
  if (unknown.length) {
    complain(`unknown argument: ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  const dir = localDirOf(findRepoRoot());
  const holder = launcherHolding(dir);
  if (holder !== undefined) {
    complain(`npm start (pid ${holder}) is running on ${dir.root}; stop it first (Ctrl-C).`);
    return 1;
  }
  const targets = [dir.data, dir.credentialsFile].filter((file) => fs.existsSync(file));
  if (!targets.length) {
    say(`Nothing to reset in ${dir.root}.`);
    return 0;
  }
  const what = `every affiliate, referral, commission, payout, webhook and the dev merchant kept in ${dir.root}`;
  if (!yes) {
    if (!process.stdin.isTTY) {
      complain(`Not a terminal, so not asking: to delete ${what}, run: ${USAGE}`);
      return 2;
    }
    if (!(await confirmed(`Delete ${what}? This cannot be undone. [y/N] `))) {
      say('Nothing deleted.');
      return 1;
    }
  }
  for (const target of targets) fs.rmSync(target, { recursive: true, force: true });
  say(`Deleted ${targets.map((t) => path.relative(dir.root, t)).join(' and ')} in ${dir.root}.`);
  say('The next `npm start` begins empty, with a new dev merchant.');
  return 0;
}

export function runReset(args: string[]): void {
  void resetData(args).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `reset failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
