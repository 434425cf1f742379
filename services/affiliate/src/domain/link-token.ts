/** Link tokens (`?via=<token>`): letters, numbers and dashes only. */
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no look-alikes (l/1, o/0)

/** A readable token from the affiliate's first name plus a random suffix, e.g. `jane-7kq2mx`. */
export function generateLinkToken(firstName: string): string {
  const slug = firstName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 20);
  const suffix = [...randomBytes(6)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return slug ? `${slug}-${suffix}` : suffix;
}
