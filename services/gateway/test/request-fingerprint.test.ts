import { requestFingerprint, scopedKey } from '../src/idempotency/request-fingerprint';

describe('idempotency request fingerprints', () => {
  const body = { first_name: 'Ida', last_name: 'E', tags: ['a', 'b'], nested: { x: '1', y: '2' } };

  it('ignores the order of fields, at every depth', () => {
    const reordered = {
      nested: { y: '2', x: '1' },
      tags: ['a', 'b'],
      last_name: 'E',
      first_name: 'Ida',
    };
    expect(requestFingerprint('post', '/v1/affiliates', {}, reordered)).toBe(
      requestFingerprint('POST', '/v1/affiliates', {}, body),
    );
  });

  it.each([
    ['a changed value', 'POST', '/v1/affiliates', {}, { ...body, last_name: 'F' }],
    ['an added field', 'POST', '/v1/affiliates', {}, { ...body, state: 'active' }],
    ['the order of a list', 'POST', '/v1/affiliates', {}, { ...body, tags: ['b', 'a'] }],
    ['another path', 'POST', '/v1/campaigns', {}, body],
    ['another method', 'PUT', '/v1/affiliates', {}, body],
    ['a query', 'POST', '/v1/affiliates', { expand: 'links' }, body],
  ])('differs for %s', (_name, method, path, query, other) => {
    expect(requestFingerprint(method, path, query, other)).not.toBe(
      requestFingerprint('POST', '/v1/affiliates', {}, body),
    );
  });

  it('treats a missing body like an empty one, and scopes keys per merchant', () => {
    expect(requestFingerprint('PUT', '/v1/payouts/1/pay', {}, undefined)).toBe(
      requestFingerprint('PUT', '/v1/payouts/1/pay', {}, null),
    );
    expect(scopedKey('m1', 'k')).not.toBe(scopedKey('m2', 'k'));
    expect(scopedKey('m1', 'k'.repeat(10_000))).toMatch(/^idem:m1:[0-9a-f]{64}$/);
  });
});
