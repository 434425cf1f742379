/**
 * Rotating an endpoint's signing secret: the new secret signs every request at once, and the
 * previous one keeps signing alongside it until its overlap ends, so a receiver can switch to
 * the new secret at its own pace. A second rotation within the overlap keeps only the secret it
 * replaces (the one before that stops at once). Pure functions.
 */
import type { EndpointRecord } from './records';
import { generateSecret } from './signature';

/** The secrets a request is signed with now: the current one first. */
export function signingSecrets(
  endpoint: Pick<EndpointRecord, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const expires = endpoint.previous_secret_expires_at;
  return endpoint.previous_secret && expires && new Date(expires).getTime() > now.getTime()
    ? [endpoint.secret, endpoint.previous_secret]
    : [endpoint.secret];
}

/** The fields a rotation writes. */
export function rotatedSecret(
  endpoint: Pick<EndpointRecord, 'secret'>,
  now: Date,
  overlapMs: number,
): Pick<
  EndpointRecord,
  'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'updated_at'
> {
  return {
    secret: generateSecret(),
    previous_secret: endpoint.secret,
    previous_secret_expires_at: new Date(now.getTime() + overlapMs),
    updated_at: now,
  };
}
