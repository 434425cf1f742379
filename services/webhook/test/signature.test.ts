import { Webhook } from 'standardwebhooks';
import { generateSecret, sign, webhookHeaders } from '../src/domain/signature';

describe('webhook signatures', () => {
  it('are accepted by the standardwebhooks package', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ object: { id: 'x' }, event: { id: 'e' }, request: { id: 'r' } });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, 'b5b0c7a6-1f5e-4a1f-9f57-1f2d3c4b5a69', now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers['content-type']).toBe('application/json');
  });

  it('match the package’s own signing, byte for byte', () => {
    const secret = generateSecret();
    const timestamp = new Date('2025-03-01T12:00:00Z');
    const expected = new Webhook(secret).sign('msg_1', timestamp, '{"a":1}');
    expect(sign(secret, 'msg_1', timestamp.getTime() / 1000, '{"a":1}')).toBe(expected);
  });

  it('do not verify with another secret or a changed body', () => {
    const secret = generateSecret();
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, 'msg_2', now, '{"a":1}');
    expect(() => new Webhook(generateSecret()).verify('{"a":1}', headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
  });

  it('secrets are whsec_ and 32 random bytes in base64', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });
});
