/**
 * Where the ops CLI finds the databases: the environment first, else the file `npm start`
 * writes (`.local/runtime.json` at the repository root) so `npm run ops` just works locally.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface OpsSettings {
  mongoUrl: string;
  mongoDb: string;
  natsUrl: string | undefined;
}

export function runtimeFile(): string {
  return path.resolve(__dirname, '../../../../.local/runtime.json');
}

export function loadOpsSettings(env: NodeJS.ProcessEnv = process.env): OpsSettings {
  let fromFile: { mongo_url?: string; nats_url?: string } = {};
  if (fs.existsSync(runtimeFile())) {
    fromFile = JSON.parse(fs.readFileSync(runtimeFile(), 'utf8')) as typeof fromFile;
  }
  const mongoUrl = env.MONGO_URL ?? fromFile.mongo_url;
  if (!mongoUrl) {
    throw new Error(
      'MONGO_URL is not set and no running system was found (start one with `npm start`).',
    );
  }
  return {
    mongoUrl,
    mongoDb: env.GATEWAY_MONGO_DB ?? env.MONGO_DB ?? 'gateway',
    natsUrl: env.NATS_URL ?? fromFile.nats_url,
  };
}
