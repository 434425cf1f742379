/** Error responses every route of a kind can answer, and the error body they share. */
import type { Auth, Operation } from '../operations/operation';
import type { JsonSchema } from './json-schema';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request: a bad query parameter (`page`, `limit`, `expand`, a filter) or an unparsable body',
  401: 'Missing or invalid credentials (`Invalid API Secret.` for the API secret)',
  404: 'The record does not exist (`<Resource> not found: <id>`), or no such route',
  409: 'Conflict with the current state',
  413: 'Request body too large (limit 1 MB)',
  415: 'Unsupported body encoding',
  422: 'Invalid data: `error` says what failed and `details` lists each validation message',
  429: 'Rate limit exceeded; the RateLimit header fields say when to retry',
  503: 'The service answering this operation is unavailable; retry shortly',
  504: 'The service answering this operation timed out; retry shortly',
};

/** What the route's authentication and transport add to the operation's own errors. */
function commonErrors(auth: Auth, hasBody: boolean): number[] {
  const transport = hasBody ? [400, 413, 415] : [];
  switch (auth) {
    case 'apiSecret':
      return [401, 429, 503, 504, ...transport];
    case 'publicKey':
      return [401, 429, 503, 504, ...transport];
    case 'signedHook':
      return [503, ...transport];
    default:
      return [];
  }
}

export function errorStatuses(operation: Operation): number[] {
  const all = new Set([...operation.errors, ...commonErrors(operation.auth, !!operation.body)]);
  return [...all].sort((a, b) => a - b);
}

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description: 'IETF draft rate-limit fields: `"default";r=<remaining>;t=<seconds until reset>`',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft rate-limit policy: `"default";q=<limit>;w=<window seconds>`',
    schema: { type: 'string' },
  },
};

export function errorResponse(status: number): JsonSchema {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    ...(status === 429
      ? { headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { schema: { type: 'string' } } } }
      : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

export const rateLimitHeaders = () => RATE_LIMIT_HEADERS;
