#!/usr/bin/env node
/*
 * Entry of `npm start`, `npm test`, `npm run bench` and `npm run reset` on a fresh clone: installs the npm
 * dependencies (`npm ci`) when the lockfile changed, builds (tsc -b, incremental), then hands over to the
 * compiled dev tooling in tools/devstack. Plain CommonJS because nothing is built yet when it runs.
 */
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function step(message) {
  process.stdout.write(`[setup] ${message}\n`);
}

function ensureDependencies() {
  const lock = path.join(root, 'package-lock.json');
  const marker = path.join(root, 'node_modules', '.aff-lock-hash');
  const hash = crypto.createHash('sha256').update(fs.readFileSync(lock)).digest('hex');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === hash) return;
  // `npm ci`, exactly as the Dockerfile installs: it installs what the lockfile says and never
  // rewrites it, so a local run leaves `git status` clean (issue 34).
  step('installing npm dependencies (npm ci from the lockfile)');
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: 'inherit',
  });
  fs.writeFileSync(marker, hash);
}

function build() {
  step('building (tsc -b)');
  execFileSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}

function main() {
  const [mode, ...args] = process.argv.slice(2);
  ensureDependencies();
  build();
  if (mode === 'setup') {
    return;
  } else if (mode === 'start') {
    require(path.join(root, 'tools/devstack/dist/dev-system.js')).runDevSystem();
  } else if (mode === 'test') {
    const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
    const result = spawnSync(process.execPath, [jest, ...args], { cwd: root, stdio: 'inherit' });
    process.exit(result.status ?? 1);
  } else if (mode === 'reset') {
    require(path.join(root, 'tools/devstack/dist/reset-data.js')).runReset(args);
  } else if (mode === 'bench') {
    require(path.join(root, 'tools/devstack/dist/bench/run-bench.js')).runBench(args);
  } else if (mode === 'bench:scale') {
    require(path.join(root, 'tools/devstack/dist/bench/scale-bench.js')).runScaleBench(args);
  } else {
    process.stderr.write('usage: bootstrap.cjs setup|start|test|bench|bench:scale|reset\n');
    process.exit(2);
  }
}

main();
