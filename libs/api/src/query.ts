/**
 * Query-string helpers of the gateway: `expand` / `expand[]` gathered into one list, and UUIDs.
 * Each list's parameters are checked by its contract-map entry (`ParsedQuery`, docs/contract.md).
 */
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

export function toList(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (Array.isArray(raw)) return raw.filter((v): v is string => typeof v === 'string');
  if (typeof raw === 'string') return [raw];
  throw new AppError('bad_request', 'Invalid query parameter');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
