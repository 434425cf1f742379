import { paginate, pageRequest } from '../src';

// The checks of `page` and `limit` (positive whole numbers, 400 otherwise) are the contract
// map's query schemas, tested in libs/messaging/test/query-wire.test.ts.
describe('pageRequest', () => {
  it('defaults to page 1 of 25', () => {
    expect(pageRequest({})).toEqual({ page: 1, limit: 25, skip: 0 });
  });

  it('caps the limit at 100', () => {
    expect(pageRequest({ page: 3, limit: 1000 })).toEqual({ page: 3, limit: 100, skip: 200 });
  });
});

describe('paginate', () => {
  it('fills the seven keys of the spec for a middle page', () => {
    expect(paginate(['a', 'b'], 7, { page: 2, limit: 2, skip: 2 })).toEqual({
      pagination: {
        previous_page: 1,
        current_page: 2,
        next_page: 3,
        count: 2,
        limit: 2,
        total_pages: 4,
        total_count: 7,
      },
      data: ['a', 'b'],
    });
  });

  it('has no next page on the last page and zero pages when empty', () => {
    expect(paginate(['g'], 7, { page: 4, limit: 2, skip: 6 }).pagination.next_page).toBeNull();
    expect(paginate([], 0, { page: 1, limit: 25, skip: 0 }).pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: null,
      count: 0,
      limit: 25,
      total_pages: 0,
      total_count: 0,
    });
  });
});
