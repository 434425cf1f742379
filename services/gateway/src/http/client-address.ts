/**
 * Client addresses are personal data. The gateway reads them (Express's `req.ip`, which takes
 * `X-Forwarded-For` only from a trusted proxy, TRUST_PROXY) and never lets the raw address go
 * further: rate limits count under a keyed hash, and services receive a keyed hash under the
 * merchant's own salt, which says "the same address as before" but never "which address".
 * An unkeyed hash would not do: the IPv4 space is small enough to hash whole.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Connection } from 'mongoose';

/** HMAC-SHA256 of the address under `salt`, base64url. */
export function addressHash(salt: string, address: string): string {
  return createHmac('sha256', salt).update(address, 'utf8').digest('base64url');
}

export function newAddressSalt(): string {
  return randomBytes(32).toString('base64url');
}

export function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}

/** What rate limits count an address under (Redis keys): never the address itself. */
export type AddressKey = (req: Request) => string;

interface SettingDocument {
  _id: string;
  value: string;
}

/**
 * The gateway-wide salt of rate-limit keys, one for every gateway of the installation (they
 * share the counters in Redis): made by the first gateway that starts, read by the others.
 */
export async function rateLimitAddressKey(mongo: Connection): Promise<AddressKey> {
  const settings = mongo.db!.collection<SettingDocument>('gateway_settings');
  const _id = 'rate-limit-address-salt';
  try {
    await settings.updateOne(
      { _id },
      { $setOnInsert: { value: newAddressSalt() } },
      { upsert: true },
    );
  } catch (error) {
    // Two gateways starting at once: the other one's upsert won; its salt is read below.
    if ((error as { code?: number }).code !== 11000) throw error;
  }
  const salt = (await settings.findOne({ _id }))?.value;
  if (!salt) throw new Error('gateway_settings: no rate-limit address salt');
  return (req) => `a:${addressHash(salt, clientAddress(req))}`;
}
