/** A bench merchant, made through the real ops CLI (`merchant:create --json`), rate limit lifted. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { BenchMerchant } from './money-bench';

export function createMerchant(
  root: string,
  infra: { mongoUrl: string; natsUrl: string },
  name: string,
): BenchMerchant {
  return JSON.parse(
    execFileSync(
      process.execPath,
      [
        path.join(root, 'services/gateway/dist/ops/cli.js'),
        'merchant:create',
        '--name',
        name,
        '--rate-limit',
        '1000000000',
        '--json',
      ],
      {
        env: { ...process.env, MONGO_URL: infra.mongoUrl, NATS_URL: infra.natsUrl },
        encoding: 'utf8',
      },
    ),
  ) as BenchMerchant;
}
