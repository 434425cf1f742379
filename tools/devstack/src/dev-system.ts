/**
 * `npm start`: real servers, the gateway and every service, a dev merchant, and how to reach
 * them. Connection settings go to `.local/runtime.json` (read by `npm run ops`), the dev
 * merchant's credentials to `.local/dev-credentials.json`; both are git-ignored. AFF_LOCAL_DIR
 * moves that directory (tests run a second launcher beside the one a developer may have).
 *
 * The servers keep their data in `.local/data/` across runs (database file, JetStream store,
 * Redis append-only file); `npm run reset` wipes it. Nothing kept there depends on a port: the
 * servers and the gateway may get new ones each start, and runtime.json is written afresh.
 *
 * A service that dies is started again (with backoff); SIGINT or SIGTERM stops everything
 * within a few seconds: gateway, then all services in parallel, then the servers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureDevMerchant } from './dev-merchant';
import { startInfra } from './infra';
import { claimLocalDir, localDirOf } from './local-dir';
import { findRepoRoot } from './repo-root';
import { startSystem } from './system';

export function runDevSystem(): void {
  void run().catch((error: unknown) => {
    process.stderr.write(
      `\nfailed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}

async function run(): Promise<void> {
  const root = findRepoRoot();
  const dir = localDirOf(root);
  claimLocalDir(dir);
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say(`[start] starting MongoDB-protocol server, NATS and Redis (data in ${dir.data})`);
  let stopping = false;
  const infra = await startInfra({
    // Ctrl-C reaches the servers too; their "exited unexpectedly" reports would only be noise.
    log: (line) => !stopping && say(`[infra] ${line}`),
    // Kept across runs; the database in an H2 file (docs/local-database.md).
    keepDataIn: dir.data,
    mongoBackend: 'h2',
  });
  say('[start] starting gateway and services');
  const system = await startSystem({
    infra,
    gatewayPort: Number(process.env.PORT ?? 8080),
    onLine: (name, line) => say(`[${name}] ${line}`),
    restartOnExit: true,
    onNotice: (line) => say(`[start] ${line}`),
  }).catch(async (error: unknown) => {
    await infra.stop();
    throw error;
  });

  const runtimeFile = dir.runtimeFile;
  fs.writeFileSync(
    runtimeFile,
    JSON.stringify(
      {
        gateway_url: system.gatewayUrl,
        mongo_url: infra.mongoUrl,
        nats_url: infra.natsUrl,
        redis_url: infra.redisUrl,
        // Not one of the four keys `npm run ops` reads: where Prometheus would scrape the gateway.
        gateway_ops_url: system.gatewayOpsUrl,
      },
      null,
      2,
    ),
  );
  const { credentials, reused } = await ensureDevMerchant({
    repoRoot: root,
    dir,
    gatewayUrl: system.gatewayUrl,
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    say,
  }).catch(async (error: unknown) => {
    // Stopped in order, so the database server flushes its file (not killed on exit).
    stopping = true;
    fs.rmSync(runtimeFile, { force: true });
    await system.stop().then(() => infra.stop());
    throw error;
  });
  const credentialsFile = dir.credentialsFile;
  // Relative inside the repository (`.local/...`), absolute for an AFF_LOCAL_DIR elsewhere.
  const shown = (file: string) => {
    const relative = path.relative(root, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };

  say('');
  say(`Affiliate platform is running. Gateway: ${system.gatewayUrl}`);
  say(
    `  Dev merchant ${credentials.merchant_id} (${reused ? 'kept from the last run' : 'new'}); credentials in ${shown(credentialsFile)}`,
  );
  say(`  Data kept in ${shown(dir.data)} (npm run reset wipes it)`);
  say(
    `  Try: curl -u "$(node -p "require('${path.isAbsolute(shown(credentialsFile)) ? '' : './'}${shown(credentialsFile)}').api_secret"):" ${system.gatewayUrl}/v1/affiliates`,
  );
  say('  More merchants: npm run ops -- merchant:create --name "Acme" --json');
  say('  Press Ctrl-C to stop everything.');

  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    say('\n[start] stopping');
    // Last resort; exiting SIGKILLs whatever is still running (exit hooks).
    setTimeout(() => {
      say('[start] not stopped in time; killing what is left');
      fs.rmSync(runtimeFile, { force: true });
      process.exit(1);
    }, 6_000).unref();
    void system
      .stop()
      .then(() => infra.stop())
      .finally(() => {
        fs.rmSync(runtimeFile, { force: true });
        say(`[start] stopped in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
        process.exit(0);
      });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
