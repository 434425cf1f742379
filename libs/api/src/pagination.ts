/** The spec's pagination: `page` and `limit` in, the seven-key `pagination` object out. */
import type { Paginated, Pagination } from '@aff/contracts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface PageRequest {
  page: number;
  limit: number;
  skip: number;
}

/**
 * The page a query asks for, from `page` and `limit` as the contract map's query schema parsed
 * them (positive whole numbers, checked before the handler runs): defaults filled in, an
 * over-large limit capped at the maximum (as the spec's "maximum 100" suggests).
 */
export function pageRequest(query: { page?: number; limit?: number }): PageRequest {
  const page = query.page ?? 1;
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  return { page, limit, skip: (page - 1) * limit };
}

export function paginate<T>(items: T[], totalCount: number, request: PageRequest): Paginated<T> {
  const totalPages = Math.ceil(totalCount / request.limit);
  const pagination: Pagination = {
    previous_page: request.page > 1 ? request.page - 1 : null,
    current_page: request.page,
    next_page: request.page < totalPages ? request.page + 1 : null,
    count: items.length,
    limit: request.limit,
    total_pages: totalPages,
    total_count: totalCount,
  };
  return { pagination, data: items };
}
