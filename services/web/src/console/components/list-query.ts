/**
 * A console list's state in its URL: the page declares which query keys it reads (filters with
 * a rule each, the sorts its operation can do), and every link the list draws (pager, sortable
 * headers) and every action form on it (hidden inputs, then a redirect back) keeps exactly those
 * keys. A value a rule does not accept is dropped, as if absent: a bad `?state=` or `?page=`
 * shows the unfiltered first page, never a 4xx or a 500.
 */
import { html, type SafeHtml } from '../../portal/html';

/** Accepts a raw value (returns it, perhaps normalised) or drops it (returns undefined). */
export type KeyRule = (raw: string) => string | undefined;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const rules = {
  /** Free text, trimmed and cut to `max` characters; empty is absent. */
  text:
    (max = 100): KeyRule =>
    (raw) =>
      raw.trim().slice(0, max) || undefined,
  /** One of a fixed set (a state, a currency the page offers). */
  oneOf:
    (values: readonly string[]): KeyRule =>
    (raw) =>
      values.includes(raw) ? raw : undefined,
  /** A record id (the API's UUIDs), lower-cased. */
  id: (): KeyRule => (raw) => (UUID.test(raw) ? raw.toLowerCase() : undefined),
  /** A calendar day `YYYY-MM-DD` that exists. */
  day: (): KeyRule => (raw) =>
    /^\d{4}-\d{2}-\d{2}$/.test(raw) && new Date(`${raw}T00:00:00Z`).toISOString().startsWith(raw)
      ? raw
      : undefined,
};

/**
 * Keys the table component itself uses; a page's filter may not take these names, nor `_csrf`, `_key`,
 * `ids` or `action` (the names action forms post).
 */
const RESERVED = new Set(['page', 'sort', '_csrf', '_key', 'ids', 'action']);

export interface ListSpec {
  /** The list's own path (`/console/affiliates`). */
  path: string;
  /** The filters it reads, by query key. */
  filters: Record<string, KeyRule>;
  /**
   * Sort keys the page's operation can order by (`key` ascending, `-key` descending). Offer
   * only what the underlying operation really does; none, and headers are not links.
   */
  sorts?: readonly string[];
  /** The order used without `?sort=` (when `sorts` is set), e.g. `-created_at`. */
  defaultSort?: string;
  /**
   * The order a list without sorts always has (the API's lists: newest first), shown with
   * `aria-sort` on that column's header.
   */
  fixedOrder?: string;
  /** Highest page a link may ask for (the API's own limit is higher; this bounds the URL). */
  maxPage?: number;
}

export interface ListQuery {
  spec: ListSpec;
  /** Accepted filter values by key (absent keys are not there). */
  filters: Record<string, string>;
  page: number;
  /** `key` or `-key`, one of `spec.sorts` (or the fixed/default order). */
  sort: string | undefined;
}

function first(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Reads a list's state from `req.query`, or from a posted form's body (the same keys). */
export function readListQuery(spec: ListSpec, raw: unknown): ListQuery {
  const source = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const filters: Record<string, string> = {};
  for (const [key, rule] of Object.entries(spec.filters)) {
    if (RESERVED.has(key)) throw new Error(`list filter name ${key} is reserved`);
    const value = first(source[key]);
    const accepted = value === undefined ? undefined : rule(value);
    if (accepted !== undefined) filters[key] = accepted;
  }
  const pageText = first(source.page) ?? '';
  const page = /^[1-9]\d{0,5}$/.test(pageText)
    ? Math.min(Number(pageText), spec.maxPage ?? 10_000)
    : 1;
  const sortText = first(source.sort);
  const sorts = spec.sorts ?? [];
  const sortable = (value: string) => sorts.includes(value.replace(/^-/, ''));
  const sort =
    sortText && sortable(sortText) ? sortText : sorts.length ? spec.defaultSort : spec.fixedOrder;
  return { spec, filters, page, sort };
}

export interface HrefChange {
  page?: number;
  sort?: string;
  /** Filters to set (a string) or drop (undefined). Changing filters goes back to page 1. */
  filters?: Record<string, string | undefined>;
}

/** The list's URL with some state changed; everything else the list reads is kept. */
export function listHref(q: ListQuery, change: HrefChange = {}): string {
  const filters = { ...q.filters };
  for (const [key, value] of Object.entries(change.filters ?? {})) {
    if (value === undefined || value === '') delete filters[key];
    else filters[key] = value;
  }
  const sort = change.sort ?? q.sort;
  const resets = change.filters !== undefined || (change.sort && change.sort !== q.sort);
  const page = change.page ?? (resets ? 1 : q.page);
  const params = new URLSearchParams(filters);
  const isDefault = sort === q.spec.defaultSort || sort === q.spec.fixedOrder;
  if (sort && !isDefault) params.set('sort', sort);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `${q.spec.path}?${text}` : q.spec.path;
}

/**
 * Hidden inputs carrying the list's state in an action form, so the action's redirect
 * (`listHref(readListQuery(spec, req.body))`) returns to the same filtered, sorted page.
 */
export function stateInputs(q: ListQuery): SafeHtml {
  const pairs: [string, string][] = Object.entries(q.filters);
  if (q.page > 1) pairs.push(['page', String(q.page)]);
  if (q.sort) pairs.push(['sort', q.sort]);
  return html`${pairs.map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  )}`;
}

/** Where an action on a list sends the browser back to: the list the form was posted from. */
export function backToList(spec: ListSpec, body: unknown): string {
  return listHref(readListQuery(spec, body));
}

/** The operation's query for a page of this list: `page`, `limit` and the filters as given. */
export function pageQuery(q: ListQuery, limit: number): Record<string, string> {
  return { ...q.filters, page: String(q.page), limit: String(limit) };
}
