/**
 * Where the ops CLI finds the databases: the environment first, else the file `npm start`
 * writes (`runtime.json` in `.local` at the repository root, or in AFF_LOCAL_DIR as the
 * launcher resolves it) so `npm run ops` just works locally.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface OpsSettings {
  mongoUrl: string;
  mongoDb: string;
  natsUrl: string | undefined;
}

const REPO_ROOT = path.resolve(__dirname, '../../../..');

export function runtimeFile(env: NodeJS.ProcessEnv = process.env): string {
  // Same rule as tools/devstack's launcher: relative to the repository root unless absolute.
  return path.resolve(REPO_ROOT, env.AFF_LOCAL_DIR || '.local', 'runtime.json');
}

export function loadOpsSettings(env: NodeJS.ProcessEnv = process.env): OpsSettings {
  let fromFile: { mongo_url?: string; nats_url?: string } = {};
  const file = runtimeFile(env);
  if (fs.existsSync(file)) {
    fromFile = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof fromFile;
  }
  const mongoUrl = env.MONGO_URL ?? fromFile.mongo_url;
  if (!mongoUrl) {
    throw new Error(
      `MONGO_URL is not set and no running system was found (no ${file}; start one with \`npm start\`, with the same AFF_LOCAL_DIR).`,
    );
  }
  return {
    mongoUrl,
    mongoDb: env.GATEWAY_MONGO_DB ?? env.MONGO_DB ?? 'gateway',
    natsUrl: env.NATS_URL ?? fromFile.nats_url,
  };
}
