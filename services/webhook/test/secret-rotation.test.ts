/**
 * Secret rotation: during the overlap a request carries both signatures (space-separated, as
 * Standard Webhooks allows) and a receiver that knows either secret verifies it with the
 * `standardwebhooks` package; after the overlap only the new secret signs.
 */
import { Webhook } from 'standardwebhooks';
import { rotatedSecret, signingSecrets } from '../src/domain/secret-rotation';
import { generateSecret, webhookHeaders } from '../src/domain/signature';

const body = '{"object":{"id":"x"},"event":{"id":"e"},"request":{"id":"r"}}';
const DAY = 24 * 3600 * 1000;

describe('signing secret rotation', () => {
  const old = generateSecret();
  const now = new Date();
  const rotated = { ...rotatedSecret({ secret: old }, now, DAY) };

  it('makes a new secret and keeps the replaced one until the overlap ends', () => {
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.previous_secret).toBe(old);
    expect(rotated.previous_secret_expires_at!.getTime()).toBe(now.getTime() + DAY);
    expect(signingSecrets(rotated, now)).toEqual([rotated.secret, old]);
    expect(signingSecrets(rotated, new Date(now.getTime() + DAY))).toEqual([rotated.secret]);
    expect(signingSecrets({ secret: old }, now)).toEqual([old]);
  });

  it('signs with both during the overlap: a receiver with either secret verifies', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(signingSecrets(rotated, now), 'msg_r', timestamp, body);
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    expect(new Webhook(rotated.secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('signs with the new secret alone once the overlap is over', () => {
    const later = new Date(now.getTime() + DAY + 1);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(signingSecrets(rotated, later), 'msg_s', timestamp, body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(rotated.secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(old).verify(body, headers)).toThrow();
  });

  it('a second rotation within the overlap keeps only the secret it replaces', () => {
    const again = rotatedSecret(rotated, now, DAY);
    expect(signingSecrets(again, now)).toEqual([again.secret, rotated.secret]);
  });
});
