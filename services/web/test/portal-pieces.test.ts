import type { CommissionView, ReferralView } from '@aff/contracts';
import { escapeHtml, html } from '../src/portal/html';
import { commissionTotals, dailyActivity, maskEmail } from '../src/portal/portal-summary';
import { sessionCookie } from '../src/portal/session-cookie';

describe('session cookie', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const expires = new Date('2026-01-01T08:00:00Z');

  it('is HttpOnly, SameSite=Lax, scoped to /portal and expires', () => {
    const cookie = sessionCookie('abc', expires, false, now);
    expect(cookie.split('; ')).toEqual([
      'aff_portal=abc',
      'Path=/portal',
      'Max-Age=28800',
      'Expires=Thu, 01 Jan 2026 08:00:00 GMT',
      'HttpOnly',
      'SameSite=Lax',
    ]);
  });

  it('is Secure over HTTPS, and clearing it expires it at once', () => {
    expect(sessionCookie('abc', expires, true, now)).toMatch(/; Secure$/);
    expect(sessionCookie(null, expires, true, now)).toMatch(
      /^aff_portal=; Path=\/portal; Max-Age=0;/,
    );
  });
});

describe('html', () => {
  it('escapes interpolated text but not nested templates', () => {
    const name = '<script>alert("x")</script>';
    // prettier-ignore
    const out = html`<p>${name}</p>${html`<b>${'&'}</b>`}`.value;
    expect(out).toBe('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p><b>&amp;</b>');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});

describe('dashboard figures', () => {
  const commission = (state: CommissionView['state'], amount: number, currency: string) =>
    ({ state, amount, currency }) as CommissionView;

  it('totals commissions by state per currency; voided ones are not earned', () => {
    expect(
      commissionTotals([
        commission('pending', 100, 'usd'),
        commission('due', 200, 'USD'),
        commission('paid', 300, 'USD'),
        commission('voided', 400, 'USD'),
        commission('due', 50, 'EUR'),
      ]),
    ).toEqual([
      { currency: 'EUR', cents: { pending: 0, due: 50, paid: 0, voided: 0 }, earned: 50 },
      { currency: 'USD', cents: { pending: 100, due: 200, paid: 300, voided: 400 }, earned: 600 },
    ]);
  });

  it('counts referrals started and converted per UTC day over the last 30 days', () => {
    const now = new Date('2026-03-31T12:00:00Z');
    const referral = (created: string, converted: string | null) =>
      ({ created_at: created, became_conversion_at: converted }) as ReferralView;
    const series = dailyActivity(
      [
        referral('2026-03-31T01:00:00Z', '2026-03-31T02:00:00Z'),
        referral('2026-03-30T23:59:59Z', null),
        referral('2026-03-02T00:00:00Z', '2026-03-30T10:00:00Z'),
        referral('2026-03-01T23:00:00Z', null), // 31 days ago: outside the window
      ],
      now,
    );
    expect(series).toHaveLength(30);
    expect(series[0]).toEqual({ day: '2026-03-02', visitors: 1, conversions: 0 });
    expect(series.at(-2)).toEqual({ day: '2026-03-30', visitors: 1, conversions: 1 });
    expect(series.at(-1)).toEqual({ day: '2026-03-31', visitors: 1, conversions: 1 });
    expect(series.reduce((sum, d) => sum + d.visitors, 0)).toBe(3);
  });
});

it('masks customer e-mails down to their first letter and domain', () => {
  expect(maskEmail('jane.doe@example.com')).toBe('j***@example.com');
  expect(maskEmail('broken')).toBe('***');
});
