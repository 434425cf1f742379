/**
 * Operator commands (no REST): create a merchant, rotate its API secret. Secrets are printed
 * once, here, and never stored in clear.
 *   npm run ops -- merchant:create --name <name> [--rate-limit <n>] [--json]
 *   npm run ops -- merchant:rotate-secret --merchant <id> [--json]
 *   npm run ops -- console:invite --merchant <id> --email <e> [--role owner|viewer] [--json]
 */
import { parseArgs } from 'node:util';
import { MERCHANT_CHANGED_SUBJECT } from '@aff/contracts';
import { connect } from '@nats-io/transport-node';
import { connectMongo } from '@aff/mongo';
import { MerchantRepository } from '../merchants/merchant.repository';
import { inviteConsoleUser, parseRole } from './console-invite';
import { merchantModel } from '../merchants/merchant.schema';
import { loadOpsSettings } from './runtime-settings';

const USAGE = `usage:
  merchant:create --name <name> [--rate-limit <requests per 30 s>] [--json]
  merchant:rotate-secret --merchant <id> [--json]
  console:invite --merchant <id> --email <address> [--role owner|viewer] [--json]`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      merchant: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (command === 'merchant:create') {
    const name = values.name?.trim();
    if (!name) throw new UsageError('--name is required');
    const rateLimit = parseRateLimit(values['rate-limit']);
    await withRepository(async (repo, notify) => {
      const { merchant, credentials } = await repo.create(name, rateLimit);
      // Gateways add the new secret to their in-memory directory at once.
      await notify();
      const output = {
        merchant_id: merchant._id,
        api_secret: credentials.apiSecret,
        public_key: credentials.publicKey,
        processor_signing_secret: credentials.processorSigningSecret,
      };
      print(values.json, output, [
        `Merchant "${name}" created: ${merchant._id}`,
        `  API secret (shown once): ${credentials.apiSecret}`,
        `  Public key:              ${credentials.publicKey}`,
        `  Processor signing secret (shown once): ${credentials.processorSigningSecret}`,
        `  Rate limit: ${rateLimit ?? 'default'} requests per 30 s`,
      ]);
    });
    return;
  }
  if (command === 'merchant:rotate-secret') {
    const id = values.merchant?.trim();
    if (!id) throw new UsageError('--merchant is required');
    await withRepository(async (repo, notify) => {
      const rotated = await repo.rotateSecret(id);
      if (!rotated) throw new Error(`Merchant not found: ${id}`);
      await notify();
      print(values.json, { merchant_id: id, api_secret: rotated.apiSecret }, [
        `New API secret for ${id} (shown once; the old one no longer works): ${rotated.apiSecret}`,
      ]);
    });
    return;
  }
  if (command === 'console:invite') {
    const id = values.merchant?.trim();
    const email = values.email?.trim();
    const role = parseRole(values.role);
    if (!id) throw new UsageError('--merchant is required');
    if (!email || !/^[^@\s]+@[^@\s]+$/.test(email))
      throw new UsageError('--email <address> is required');
    if (!role) throw new UsageError('--role must be owner or viewer');
    const settings = loadOpsSettings();
    await withRepository(async (repo) => {
      const invited = await inviteConsoleUser(repo, settings.natsUrl, {
        merchant_id: id,
        email,
        role,
      });
      print(values.json, invited, [
        `Console user ${email} (${role}) of ${id}: ${invited.user_id}`,
        `  A sign-in link was mailed (15 minutes, single use): ${invited.sign_in_url}`,
      ]);
    });
    return;
  }
  throw new UsageError(command ? `unknown command: ${command}` : 'a command is required');
}

function parseRateLimit(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError('--rate-limit must be a positive whole number');
  return Number(raw);
}

async function withRepository(
  run: (repo: MerchantRepository, notifyGateways: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const settings = loadOpsSettings();
  const mongo = await connectMongo(settings.mongoUrl, settings.mongoDb);
  try {
    const model = merchantModel(mongo);
    await model.init();
    await run(new MerchantRepository(model), () => notifyGateways(settings.natsUrl));
  } finally {
    await mongo.close();
  }
}

/**
 * Tells running gateways to reload their credentials (new and rotated secrets); they also
 * reload on their own every AUTH_DIRECTORY_RELOAD_SECONDS.
 */
async function notifyGateways(natsUrl: string | undefined): Promise<void> {
  if (!natsUrl) return;
  try {
    // NATS_URL as the services read it: one server, or a cluster's seeds comma-separated.
    const servers = natsUrl.split(',').map((server) => server.trim());
    const nc = await connect({ servers, timeout: 3000 });
    nc.publish(MERCHANT_CHANGED_SUBJECT, '');
    await nc.drain();
  } catch {
    process.stderr.write(
      'warning: could not reach NATS; gateways pick up the change at their next reload (30 s)\n',
    );
  }
}

function print(json: boolean | undefined, data: object, lines: string[]): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${lines.join('\n')}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n${error instanceof UsageError ? USAGE + '\n' : ''}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
