import { AppError, isUuid, parseExpand } from '../src';

describe('parseExpand', () => {
  it('accepts expand=a, expand[]=a&expand[]=b and comma lists, without duplicates', () => {
    expect(parseExpand('campaign')).toEqual(['campaign']);
    expect(parseExpand(['campaign', 'links'])).toEqual(['campaign', 'links']);
    expect(parseExpand('campaign,links,campaign')).toEqual(['campaign', 'links']);
    expect(parseExpand(undefined)).toEqual([]);
  });

  it('rejects a nested object with a 400', () => {
    expect(() => parseExpand({ a: 'b' })).toThrow(AppError);
  });
});

describe('isUuid', () => {
  it('recognises UUIDs', () => {
    expect(isUuid('6f1c2a34-9d8e-4b7a-8c6d-5e4f3a2b1c0d')).toBe(true);
    expect(isUuid('123')).toBe(false);
  });
});
