/** Query-string helpers shared by list endpoints: `expand` / `expand[]`, multi-valued filters, timestamps. */
import { AppError } from './app-error';

/**
 * The gateway's query parser turns `expand[]=a&expand[]=b` into `expand: ['a','b']` and
 * `expand=a` into `'a'`; a comma list (`expand=a,b`) is accepted too.
 */
export function parseExpand(raw: unknown): string[] {
  const values = toList(raw);
  return [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

/** Rejects expand names an endpoint does not offer, so a typo is not silently ignored. */
export function checkExpand<T extends string>(requested: string[], allowed: readonly T[]): Set<T> {
  const unknown = requested.filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new AppError(
      'bad_request',
      `Unknown expand: ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}`,
    );
  }
  return new Set(requested as T[]);
}

export function toList(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (Array.isArray(raw)) return raw.filter((v): v is string => typeof v === 'string');
  if (typeof raw === 'string') return [raw];
  throw new AppError('bad_request', 'Invalid query parameter');
}

/** A single string filter; repeated or nested values are a client error, not a crash. */
export function optionalString(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw new AppError('bad_request', `${name} must be a single value`);
  return raw;
}

/** `state=a` or `state[]=a&state[]=b`, each checked against the allowed values. */
export function enumList<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T[] {
  const values = [...toList(query[name]), ...toList(query[`${name}[]`])];
  const flat = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const value of flat) {
    if (!allowed.includes(value as T)) {
      throw new AppError('bad_request', `${name} must be one of: ${allowed.join(', ')}`);
    }
  }
  return [...new Set(flat)] as T[];
}

export function optionalTimestamp(query: Record<string, unknown>, name: string): Date | undefined {
  const raw = optionalString(query, name);
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) {
    throw new AppError('bad_request', `${name} must be an ISO 8601 timestamp`);
  }
  return date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
