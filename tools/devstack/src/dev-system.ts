/**
 * `npm start`: real servers, the gateway and every service, a dev merchant, and how to reach
 * them. Connection settings go to `.local/runtime.json` (read by `npm run ops`), the dev
 * merchant's credentials to `.local/dev-credentials.json`; both are git-ignored. AFF_LOCAL_DIR
 * moves that directory (tests run a second launcher beside the one a developer may have).
 *
 * A service that dies is started again (with backoff); SIGINT or SIGTERM stops everything
 * within a few seconds: gateway, then all services in parallel, then the servers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startInfra } from './infra';
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
  const localDir = path.resolve(root, process.env.AFF_LOCAL_DIR ?? '.local');
  fs.mkdirSync(localDir, { recursive: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say('[start] starting MongoDB-protocol server, NATS and Redis');
  // The local database keeps its data in an H2 file under .local/data while the stack runs.
  fs.mkdirSync(path.join(localDir, 'data'), { recursive: true });
  let stopping = false;
  const infra = await startInfra({
    // Ctrl-C reaches the servers too; their "exited unexpectedly" reports would only be noise.
    log: (line) => !stopping && say(`[infra] ${line}`),
    dataDir: path.join(localDir, 'data'),
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

  const runtimeFile = path.join(localDir, 'runtime.json');
  fs.writeFileSync(
    runtimeFile,
    JSON.stringify(
      {
        gateway_url: system.gatewayUrl,
        mongo_url: infra.mongoUrl,
        nats_url: infra.natsUrl,
        redis_url: infra.redisUrl,
      },
      null,
      2,
    ),
  );
  const credentials = JSON.parse(
    execFileSync(
      process.execPath,
      [
        path.join(root, 'services/gateway/dist/ops/cli.js'),
        'merchant:create',
        '--name',
        'Dev merchant',
        '--json',
      ],
      {
        env: { ...process.env, MONGO_URL: infra.mongoUrl, NATS_URL: infra.natsUrl },
        encoding: 'utf8',
      },
    ),
  ) as { merchant_id: string; api_secret: string; public_key: string };
  const credentialsFile = path.join(localDir, 'dev-credentials.json');
  fs.writeFileSync(
    credentialsFile,
    JSON.stringify({ gateway_url: system.gatewayUrl, ...credentials }, null, 2),
    {
      mode: 0o600,
    },
  );

  say('');
  say(`Affiliate platform is running. Gateway: ${system.gatewayUrl}`);
  say(
    `  Dev merchant ${credentials.merchant_id}; credentials in ${path.relative(root, credentialsFile)}`,
  );
  say(
    `  Try: curl -u "$(node -p "require('./${path.relative(root, credentialsFile)}').api_secret"):" ${system.gatewayUrl}/v1/affiliates`,
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
