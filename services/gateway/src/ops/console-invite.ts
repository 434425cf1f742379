/**
 * `console:invite`: checks the merchant exists (the gateway's database, which the CLI reads
 * anyway), then asks the web service, which owns console users, to create the user and mail a
 * sign-in link (the internal operation `inviteConsoleUser` over NATS).
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { CONSOLE_ROLES, OPERATIONS } from '@aff/contracts';
import { callInternal, RpcClient } from '@aff/messaging';
import type { MerchantRepository } from '../merchants/merchant.repository';

export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export function parseRole(raw: string | undefined): ConsoleRole | null {
  if (raw === undefined) return 'owner';
  return (CONSOLE_ROLES as readonly string[]).includes(raw) ? (raw as ConsoleRole) : null;
}

export async function inviteConsoleUser(
  repo: MerchantRepository,
  natsUrl: string | undefined,
  input: { merchant_id: string; email: string; role: ConsoleRole },
): Promise<{ user_id: string; sign_in_url: string }> {
  if (!(await repo.findById(input.merchant_id))) {
    throw new Error(`Merchant not found: ${input.merchant_id}`);
  }
  if (!natsUrl) throw new Error('NATS_URL is not set and no running system was found');
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()), timeout: 3000 });
  try {
    return await callInternal(
      new RpcClient(nc, 10_000),
      OPERATIONS.inviteConsoleUser,
      input,
      randomUUID(),
    );
  } finally {
    await nc.drain();
  }
}
