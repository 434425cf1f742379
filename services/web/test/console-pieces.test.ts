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
