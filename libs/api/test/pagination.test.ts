import { AppError, paginate, parsePageRequest } from '../src';

describe('parsePageRequest', () => {
  it('defaults to page 1 of 25', () => {
    expect(parsePageRequest({})).toEqual({ page: 1, limit: 25, skip: 0 });
  });

  it('caps the limit at 100', () => {
    expect(parsePageRequest({ page: '3', limit: '1000' })).toEqual({
      page: 3,
      limit: 100,
      skip: 200,
    });
  });

  it.each([['abc'], ['0'], ['-2'], ['1.5'], [['1', '2']], [{ a: 1 }], ['99999999999']])(
    'rejects page %p with a 400',
    (page) => {
      expect(() => parsePageRequest({ page })).toThrow(AppError);
      try {
        parsePageRequest({ page });
      } catch (error) {
        expect((error as AppError).status).toBe(400);
      }
    },
  );
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
