/** The spec's pagination: `page` and `limit` in, the seven-key `pagination` object out. */
import type { Paginated, Pagination } from '@aff/contracts';
import { AppError } from './app-error';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface PageRequest {
  page: number;
  limit: number;
  skip: number;
}

/** Over-large limits are capped at the maximum (as the spec's "maximum 100" suggests); junk is a 400. */
export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const page = parsePositive(query.page, 'page', 1);
  const limit = Math.min(parsePositive(query.limit, 'limit', DEFAULT_LIMIT), MAX_LIMIT);
  return { page, limit, skip: (page - 1) * limit };
}

function parsePositive(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text) || Number(text) < 1) {
    throw new AppError('bad_request', `${name} must be a positive whole number`);
  }
  return Number(text);
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
