import { formFingerprint } from '../src/console/form-keys';
import { formFields } from '../src/console/components/form-fields';

describe('a console form key', () => {
  it('names the request by path and fields, not by CSRF token, key or field order', () => {
    const a = formFingerprint('/console/commissions', {
      _csrf: 'x',
      _key: 'k1',
      ids: ['1', '2'],
      action: 'void',
    });
    const b = formFingerprint('/console/commissions', {
      action: 'void',
      ids: ['1', '2'],
      _key: 'k2',
      _csrf: 'y',
    });
    expect(b).toBe(a);
    expect(formFingerprint('/console/commissions', { action: 'void', ids: ['1'] })).not.toBe(a);
    expect(formFingerprint('/console/reviews', { action: 'void', ids: ['1', '2'] })).not.toBe(a);
  });

  it('is new on every rendering of a form', () => {
    const key = (s: string) => /name="_key" value="([^"]+)"/.exec(s)?.[1];
    const first = String(formFields('token'));
    expect(first).toContain('name="_csrf" value="token"');
    expect(key(first)).toMatch(/^[0-9a-f-]{36}$/);
    expect(key(String(formFields('token')))).not.toBe(key(first));
  });
});
