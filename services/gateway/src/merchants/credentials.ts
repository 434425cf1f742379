/** Merchant credentials: random secrets with recognisable prefixes, and the hash that is stored. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const token = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;

export interface IssuedCredentials {
  apiSecret: string;
  publicKey: string;
  processorSigningSecret: string;
}

export function issueCredentials(): IssuedCredentials {
  return { apiSecret: token('sk'), publicKey: token('pk'), processorSigningSecret: token('whsec') };
}

export function issueApiSecret(): string {
  return token('sk');
}

/** API secrets are 192-bit random values, so a fast hash is enough (no password stretching). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
