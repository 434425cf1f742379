/** Creates a fresh merchant (tenant) through the real ops CLI, as an operator would. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../services/gateway/dist/ops/cli.js');

export interface TestMerchant {
  merchant_id: string;
  api_secret: string;
  public_key: string;
  processor_signing_secret: string;
}

let counter = 0;

export async function createMerchant(
  opts: {
    rateLimit?: number;
    name?: string;
    /** Where the CLI tells gateways of the new merchant (an isolated system's NATS); '' = none. */
    natsUrl?: string;
    /** The database server of the gateway to create it in (an isolated system's own). */
    mongoUrl?: string;
  } = {},
): Promise<TestMerchant> {
  const args = ['merchant:create', '--name', opts.name ?? `Test merchant ${++counter}`, '--json'];
  if (opts.rateLimit !== undefined) args.push('--rate-limit', String(opts.rateLimit));
  const env = { ...process.env };
  if (opts.natsUrl !== undefined) env.NATS_URL = opts.natsUrl;
  if (opts.mongoUrl !== undefined) env.MONGO_URL = opts.mongoUrl;
  const { stdout } = await run(process.execPath, [CLI, ...args], { env });
  return JSON.parse(stdout) as TestMerchant;
}

export async function runOps(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
