#!/usr/bin/env node
/*
 * Feeds each component's rendered settings to that service's own configuration schema, so a
 * value the chart sets that the process would refuse at start (TRUST_PROXY: "yes", a
 * non-numeric RPC_TIMEOUT_MS, a LOG_LEVEL it does not know) fails CI instead of a rollout.
 *
 *   node deploy/ci/check-chart-settings.cjs <settings.json>
 *
 * settings.json: {"<component>": {"VAR": "value", ...}} — a component's ConfigMap data, as
 * check-chart-policy.py writes it. Credentials come from Secrets at run time, so syntactically
 * valid stand-ins are used for them. Needs the build (services/<name>/dist/config.js); a
 * component without a built config module is reported and skipped.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const STAND_INS = {
  MONGO_URL: 'mongodb://mongo-0:27017,mongo-1:27017/?replicaSet=rs0',
  NATS_URL: 'nats://nats:4222',
  REDIS_URL: 'redis://redis:6379',
};

function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: check-chart-settings.cjs <settings.json>');
    process.exit(2);
  }
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  const problems = [];
  let checked = 0;
  for (const [component, env] of Object.entries(settings)) {
    const modulePath = path.join(root, 'services', component, 'dist', 'config.js');
    if (!fs.existsSync(modulePath)) {
      console.log(
        `check-chart-settings: ${component}: no ${path.relative(root, modulePath)} (not built), skipped`,
      );
      continue;
    }
    const { configSchema } = require(modulePath);
    const result = configSchema.safeParse({ ...STAND_INS, ...env });
    checked += 1;
    if (!result.success) {
      for (const issue of result.error.issues) {
        problems.push(`${component}: ${issue.path.join('.')}: ${issue.message}`);
      }
    }
  }
  for (const problem of problems) console.error(`check-chart-settings: ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(
    `check-chart-settings: the settings of ${checked} component(s) pass their config schemas`,
  );
}

main();
