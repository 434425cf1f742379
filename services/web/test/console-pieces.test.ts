import { SignInLimiter } from '../src/console/sign-in-limiter';
import { CONSOLE_COOKIE, sessionCookie } from '../src/portal/session-cookie';

describe('console session cookie', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const expires = new Date('2026-01-01T12:00:00Z');

  it('is HttpOnly, SameSite=Lax, scoped to /console, 12 h, and Secure over HTTPS', () => {
    expect(sessionCookie('abc', expires, true, now, CONSOLE_COOKIE).split('; ')).toEqual([
      'aff_console=abc',
      'Path=/console',
      'Max-Age=43200',
      'Expires=Thu, 01 Jan 2026 12:00:00 GMT',
      'HttpOnly',
      'SameSite=Lax',
      'Secure',
    ]);
  });
});

describe('sign-in limiter', () => {
  it('allows a number of requests per key and window, then refuses until the window moves', () => {
    let clock = 0;
    const limiter = new SignInLimiter(2, 1000, () => clock);
    expect([limiter.allow('a'), limiter.allow('a'), limiter.allow('a')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(limiter.allow('b')).toBe(true);
    clock = 1001;
    expect(limiter.allow('a')).toBe(true);
  });
});
