/**
 * A console list's affiliate filter by e-mail (commissions, referrals): merchants know their
 * affiliates by e-mail, while the lists filter by affiliate id. The e-mail is looked up with the
 * affiliate service's internal findAffiliates (exact, lower-cased, as the session's merchant), so
 * another merchant's affiliate is never found and its records are never listed.
 */
import { OPERATIONS, type Paginated } from '@aff/contracts';
import type { ConsoleCalls } from './console-data';

/**
 * The affiliate id a filter value names: a value without `@` is taken as the id it is (the page's
 * rule has checked it); an e-mail is the id of the session merchant's affiliate with that e-mail,
 * or null when it has none (the list then shows nothing, never the unfiltered list).
 */
export async function affiliateIdOf(calls: ConsoleCalls, value: string): Promise<string | null> {
  if (!value.includes('@')) return value;
  const found = await calls.internal(OPERATIONS.findAffiliates, {
    email: value.toLowerCase(),
    page: 1,
    limit: 1,
  });
  return found.data[0]?.id ?? null;
}

/** An empty page of a list, for a filter that names no affiliate of the merchant. */
export function noRows<T>(page: number, limit: number): Paginated<T> {
  const pagination = {
    previous_page: null,
    current_page: page,
    next_page: null,
    count: 0,
    limit,
    total_pages: 0,
    total_count: 0,
  };
  return { data: [], pagination };
}
