#!/usr/bin/env node
/*
 * `npm run test:chaos [-- --journeys N] [--duration 30m] [--kills N] [--no-build] [jest options]`: builds
 * (like `npm test`), then runs the chaos test with its own jest config. --duration makes it a
 * soak: rounds of journeys and faults until the time is spent (s, m or h; plain = seconds).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const env = { ...process.env };
const jestArgs = [];
const args = process.argv.slice(2);
const UNITS = { s: 1000, m: 60_000, h: 3_600_000 };

function duration(text) {
  const match = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text ?? '');
  if (!match) throw new Error(`--duration takes e.g. 90s, 30m or 2h, not ${text}`);
  return String(Math.round(Number(match[1]) * UNITS[match[2] || 's']));
}

let build = true;
const OPTIONS = {
  '--duration': (v) => (env.CHAOS_DURATION_MS = duration(v)),
  '--journeys': (v) => (env.CHAOS_JOURNEYS = String(Number(v))),
  '--kills': (v) => (env.CHAOS_KILLS = String(Number(v))),
  '--fault-window': (v) => (env.CHAOS_FAULT_WINDOW_MS = duration(v)),
};
for (let i = 0; i < args.length; i++) {
  const [name, inline] = args[i].split('=', 2);
  if (name === '--no-build') build = false;
  else if (OPTIONS[name]) OPTIONS[name](inline ?? args[++i]);
  else jestArgs.push(args[i]);
}

// `bootstrap.cjs test` installs and builds first; --no-build (CI, right after `npm test`) skips it.
const runner = build
  ? [path.join(root, 'deploy/local/bootstrap.cjs'), 'test']
  : [path.join(root, 'node_modules/jest/bin/jest.js')];
const result = spawnSync(
  process.execPath,
  [...runner, '--config', path.join(root, 'test/chaos/jest.config.js'), '--runInBand', ...jestArgs],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
