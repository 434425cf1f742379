/**
 * The dev merchant of `npm start`, created once. Its API secret is stored only hashed in the
 * database, so `dev-credentials.json` is the one record of it: while the gateway still accepts
 * that secret the merchant is reused; after `npm run reset` (or a rotated secret) a new one is
 * created. The file is rewritten every start, as the gateway URL may have changed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { LocalDir } from './local-dir';

export interface DevCredentials {
  merchant_id: string;
  api_secret: string;
  public_key: string;
  processor_signing_secret?: string;
}

/** How long a gateway that answers neither 200 nor 401 is asked again before start fails. */
const CHECK_FOR_MS = 15_000;

function readCredentials(file: string): DevCredentials | undefined {
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DevCredentials>;
    return saved.merchant_id && saved.api_secret && saved.public_key
      ? (saved as DevCredentials)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the gateway accepts the secret (the merchant exists and the secret is current). */
async function accepted(gatewayUrl: string, secret: string): Promise<boolean> {
  const deadline = Date.now() + CHECK_FOR_MS;
  for (;;) {
    const status = await fetch(`${gatewayUrl}/v1/affiliates?limit=1`, {
      headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` },
      signal: AbortSignal.timeout(5_000),
    }).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return true;
    if (status === 401) return false;
    if (Date.now() > deadline)
      throw new Error(`could not check the dev merchant: the gateway answered ${status}`);
    await delay(500);
  }
}

function createMerchant(repoRoot: string, mongoUrl: string, natsUrl: string): DevCredentials {
  const output = execFileSync(
    process.execPath,
    [
      path.join(repoRoot, 'services/gateway/dist/ops/cli.js'),
      'merchant:create',
      '--name',
      'Dev merchant',
      '--json',
    ],
    { env: { ...process.env, MONGO_URL: mongoUrl, NATS_URL: natsUrl }, encoding: 'utf8' },
  );
  return JSON.parse(output) as DevCredentials;
}

export async function ensureDevMerchant(opts: {
  repoRoot: string;
  dir: LocalDir;
  gatewayUrl: string;
  mongoUrl: string;
  natsUrl: string;
  say: (line: string) => void;
}): Promise<{ credentials: DevCredentials; reused: boolean }> {
  const saved = readCredentials(opts.dir.credentialsFile);
  const reused = saved !== undefined && (await accepted(opts.gatewayUrl, saved.api_secret));
  if (saved && !reused) {
    opts.say(
      `[start] the dev merchant ${saved.merchant_id} is gone from the database (or its secret was rotated); creating a new one`,
    );
  }
  const credentials =
    reused && saved ? saved : createMerchant(opts.repoRoot, opts.mongoUrl, opts.natsUrl);
  const { merchant_id, api_secret, public_key, processor_signing_secret } = credentials;
  fs.writeFileSync(
    opts.dir.credentialsFile,
    JSON.stringify(
      {
        gateway_url: opts.gatewayUrl,
        merchant_id,
        api_secret,
        public_key,
        processor_signing_secret,
      },
      null,
      2,
    ),
    { mode: 0o600 },
  );
  return { credentials, reused };
}
