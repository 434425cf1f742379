/**
 * `npm run reset` (the compiled entry, as bootstrap.cjs runs it, in a child process with its own
 * AFF_LOCAL_DIR): it wipes `data/` and the dev credentials only when told to: `--yes`, or "y" on
 * a terminal. Without a terminal and without `--yes`, on "n", or while a launcher holds the
 * directory, it deletes nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ENTRY = path.resolve(__dirname, '../dist/reset-data.js');
const SCRIPT = `require(${JSON.stringify(ENTRY)}).runReset(process.argv.slice(1))`;
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reset-test-'));
  fs.mkdirSync(path.join(dir, 'data', 'mongo'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data', 'mongo', 'mongo.h2.mv'), 'db');
  fs.writeFileSync(path.join(dir, 'dev-credentials.json'), '{}');
  fs.writeFileSync(path.join(dir, 'unrelated.txt'), 'kept');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, AFF_LOCAL_DIR: dir });

function reset(args: string[]) {
  return spawnSync(process.execPath, ['-e', SCRIPT, '--', ...args], {
    env: env(),
    encoding: 'utf8',
  });
}

/** Runs it on a pseudo-terminal (util-linux `script`) and types `answer`. */
function resetOnTerminal(answer: string) {
  const command = [process.execPath, '-e', SCRIPT].map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  return spawnSync('script', ['-qec', command.join(' '), '/dev/null'], {
    env: env(),
    input: `${answer}\n`,
    encoding: 'utf8',
  });
}

const kept = () => fs.existsSync(path.join(dir, 'data', 'mongo', 'mongo.h2.mv'));

it('refuses without a terminal and without --yes', () => {
  const run = reset([]);
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/--yes/);
  expect(kept()).toBe(true);
});

it('wipes the data and the dev credentials with --yes, and nothing else', () => {
  const run = reset(['--yes']);
  expect(run.status).toBe(0);
  expect(fs.readdirSync(dir)).toEqual(['unrelated.txt']);
  expect(reset(['--yes']).stdout).toMatch(/Nothing to reset/);
});

it('asks on a terminal: "n" keeps everything, "y" wipes', () => {
  const no = resetOnTerminal('n');
  expect(no.stdout).toMatch(/\[y\/N\]/);
  expect(no.status).toBe(1);
  expect(kept()).toBe(true);
  const yes = resetOnTerminal('y');
  expect(yes.status).toBe(0);
  expect(kept()).toBe(false);
});

it('refuses while a launcher holds the directory, even with --yes', () => {
  // This test process stands in for a running launcher.
  fs.writeFileSync(path.join(dir, 'launcher.pid'), String(process.pid));
  const run = reset(['--yes']);
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(new RegExp(`pid ${process.pid}`));
  expect(kept()).toBe(true);
});

it('rejects unknown arguments', () => {
  expect(reset(['--force']).status).toBe(2);
  expect(kept()).toBe(true);
});
