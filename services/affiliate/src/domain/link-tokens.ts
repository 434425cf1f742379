/**
 * Tokens of the single-use links the affiliate service mails or hands out (portal sign-in,
 * e-mail and wallet confirmations): random, 256 bits, and only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored and looked up instead of the token itself. */
export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
