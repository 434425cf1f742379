import { secretFromAuthorization } from '../src/http/auth';
import { hashSecret, hashesMatch, issueCredentials } from '../src/merchants/credentials';
import { rateLimitHeaders } from '../src/rate-limit/merchant-rate-limiter';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

describe('secretFromAuthorization', () => {
  it('takes the username with an empty or omitted password', () => {
    expect(secretFromAuthorization(basic('sk_abc:'))).toBe('sk_abc');
    expect(secretFromAuthorization(basic('sk_abc'))).toBe('sk_abc');
    expect(secretFromAuthorization(`basic ${Buffer.from('sk_abc:').toString('base64')}`)).toBe(
      'sk_abc',
    );
  });

  it.each([[undefined], [''], ['Bearer sk_abc'], ['Basic'], ['Basic %%%'], [basic(':password')]])(
    'finds no secret in %p',
    (header) => {
      expect(secretFromAuthorization(header)).toBeNull();
    },
  );
});

describe('credentials', () => {
  it('issues distinct prefixed secrets and stores only a comparable hash', () => {
    const a = issueCredentials();
    const b = issueCredentials();
    expect(a.apiSecret).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(a.publicKey).toMatch(/^pk_/);
    expect(a.processorSigningSecret).toMatch(/^whsec_/);
    expect(a.apiSecret).not.toBe(b.apiSecret);
    const hash = hashSecret(a.apiSecret);
    expect(hash).not.toContain(a.apiSecret);
    expect(hashesMatch(hash, hashSecret(a.apiSecret))).toBe(true);
    expect(hashesMatch(hash, hashSecret(b.apiSecret))).toBe(false);
  });
});

describe('rateLimitHeaders', () => {
  it('writes the draft -11 fields', () => {
    expect(
      rateLimitHeaders({
        allowed: true,
        limit: 45,
        remaining: 12,
        resetSeconds: 17,
        windowSeconds: 30,
      }),
    ).toEqual({ 'RateLimit-Policy': '"default";q=45;w=30', RateLimit: '"default";r=12;t=17' });
  });
});
