/**
 * The query string of a public operation is parsed with its contract-map entry before the
 * handler runs: typed values out, the spec's 400 texts for junk. Real entries of the map.
 */
import { OPERATIONS } from '@aff/contracts';
import { AppError } from '@aff/api';
import { parseQuery } from '../src';

const listPayouts = OPERATIONS.listPayouts.query;
const listReferrals = OPERATIONS.listReferrals.query;
const listAffiliates = OPERATIONS.listAffiliates.query;

function rejection(run: () => unknown): { status: number; body: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, body: error.toBody() };
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('parseQuery (the wire check of a list query)', () => {
  it('hands on typed values: numbers, lists of allowed values, expand names, dates', () => {
    expect(
      parseQuery(listPayouts, {
        query: { page: '2', limit: '50', state: 'due,paid', affiliate_id: 'a1', extra: 'x' },
        expand: ['affiliate', 'commissions'],
      }),
    ).toEqual({
      page: 2,
      limit: 50,
      state: ['due', 'paid'],
      affiliate_id: 'a1',
      expand: ['affiliate', 'commissions'],
    });
    const referrals = parseQuery(listReferrals, {
      query: { updated_since: '2026-01-02T03:04:05Z', conversion_state: ['lead', 'lead'] },
      expand: [],
    });
    expect(referrals.updated_since).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(referrals.conversion_state).toEqual(['lead']);
    expect(referrals.expand).toBeUndefined();
  });

  it('treats empty values as absent and joins the repeated form into the comma form', () => {
    expect(parseQuery(listPayouts, { query: { page: '', state: '' }, expand: [] })).toEqual({});
    const { state } = parseQuery(listPayouts, {
      query: { 'state[]': ['due'], state: 'paid' },
      expand: [],
    });
    expect(new Set(state)).toEqual(new Set(['paid', 'due']));
  });

  it.each([
    [{ page: '0' }, 'page must be a positive whole number'],
    [{ limit: 'abc' }, 'limit must be a positive whole number'],
    [{ page: '1.5' }, 'page must be a positive whole number'],
    [{ page: ['1', '2'] }, 'page must be a positive whole number'],
    [{ page: '99999999999' }, 'page must be a positive whole number'],
    [{ state: 'lost' }, 'state must be one of: pending, due, processing, paid'],
    [{ state: ['due', 'lost'] }, 'state must be one of: pending, due, processing, paid'],
    [{ affiliate_id: ['a', 'b'] }, 'affiliate_id must be a single value'],
    [{ affiliate_id: { nested: '1' } }, 'affiliate_id must be a single value'],
  ])('answers %p with 400 %p', (query, message) => {
    expect(rejection(() => parseQuery(listPayouts, { query, expand: [] }))).toEqual({
      status: 400,
      body: { error: message },
    });
  });

  it('names every unknown expansion and the allowed ones', () => {
    expect(
      rejection(() => parseQuery(listPayouts, { query: {}, expand: ['links', 'affiliate', 'x'] })),
    ).toEqual({
      status: 400,
      body: { error: 'Unknown expand: links, x. Allowed: affiliate, commissions' },
    });
    expect(parseQuery(listAffiliates, { query: {}, expand: ['commission_stats'] }).expand).toEqual([
      'commission_stats',
    ]);
  });

  it('rejects a timestamp that is not one', () => {
    expect(
      rejection(() =>
        parseQuery(listReferrals, { query: { updated_until: 'yesterday' }, expand: [] }),
      ),
    ).toEqual({ status: 400, body: { error: 'updated_until must be an ISO 8601 timestamp' } });
  });
});
