/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>`
 * keyed with the base64-decoded part of the endpoint secret after `whsec_`. Pure functions.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes, base64, with the customary `whsec_` prefix. */
export function generateSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

export function sign(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The headers of one request; the id stays the same on every retry so receivers can de-duplicate.
 * Several secrets (during a rotation: the new one first, then the previous one) give several
 * space-separated signatures, as Standard Webhooks allows; a receiver that knows any one verifies.
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': (typeof secrets === 'string' ? [secrets] : secrets)
      .map((secret) => sign(secret, msgId, timestampSeconds, body))
      .join(' '),
  };
}
