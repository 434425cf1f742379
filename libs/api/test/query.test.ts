import {
  AppError,
  checkExpand,
  enumList,
  isUuid,
  optionalString,
  optionalTimestamp,
  parseExpand,
} from '../src';

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

describe('checkExpand', () => {
  it('names unknown expansions', () => {
    expect(() => checkExpand(['links', 'secrets'], ['links'] as const)).toThrow(
      /Unknown expand: secrets/,
    );
    expect([...checkExpand(['links'], ['links', 'campaign'] as const)]).toEqual(['links']);
  });
});

describe('enumList', () => {
  it('reads state and state[] and checks every value', () => {
    expect(enumList({ state: 'due' }, 'state', ['due', 'paid'])).toEqual(['due']);
    expect(enumList({ 'state[]': ['due', 'paid'] }, 'state', ['due', 'paid'])).toEqual([
      'due',
      'paid',
    ]);
    expect(enumList({ state: ['paid', 'paid'] }, 'state', ['due', 'paid'])).toEqual(['paid']);
    expect(() => enumList({ state: 'lost' }, 'state', ['due'])).toThrow(
      /state must be one of: due/,
    );
  });
});

describe('single-valued filters', () => {
  it('rejects repeated values and bad timestamps', () => {
    expect(optionalString({ email: 'a@b.c' }, 'email')).toBe('a@b.c');
    expect(() => optionalString({ email: ['a', 'b'] }, 'email')).toThrow(AppError);
    expect(optionalTimestamp({ t: '2026-01-02T03:04:05Z' }, 't')?.toISOString()).toBe(
      '2026-01-02T03:04:05.000Z',
    );
    expect(() => optionalTimestamp({ t: 'yesterday' }, 't')).toThrow(/ISO 8601/);
  });

  it('recognises UUIDs', () => {
    expect(isUuid('6f1c2a34-9d8e-4b7a-8c6d-5e4f3a2b1c0d')).toBe(true);
    expect(isUuid('123')).toBe(false);
  });
});
