/**
 * Turns one operation of the contract map and a flat input object into an HTTP request:
 * path parameters into the path, query parameters into the query string, everything else into
 * a JSON body. The split follows the operation's own schemas, so it needs no per-operation code.
 */
import type { Operation } from '@aff/contracts';

export interface BuiltRequest {
  method: string;
  /** Path and query string, without the base URL. */
  path: string;
  body?: string;
}

type Input = Record<string, unknown>;

export function buildRequest(operation: Operation, input: Input = {}): BuiltRequest {
  const http = operation.http;
  if (!http) throw new TypeError(`${operation.name} has no HTTP route`);
  const paramKeys = keysOf(operation.params);
  const queryKeys = keysOf(operation.query);
  const bodyFields: Input = {};
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (paramKeys.has(key)) continue;
    if (value === undefined) continue;
    if (queryKeys.has(key)) appendQuery(query, key, value);
    else if (operation.body) bodyFields[key] = value;
    else throw new TypeError(`${operation.name} takes no parameter "${key}"`);
  }
  const path = http.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = input[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`${operation.name} needs the path parameter "${name}"`);
    }
    return encodeURIComponent(String(value));
  });
  const search = query.toString();
  const built: BuiltRequest = {
    method: http.method.toUpperCase(),
    path: search ? `${path}?${search}` : path,
  };
  if (operation.body) built.body = JSON.stringify(bodyFields);
  return built;
}

/** `name[]` keys take arrays (one pair each); other values are written as strings. */
function appendQuery(query: URLSearchParams, key: string, value: unknown): void {
  for (const one of Array.isArray(value) ? value : [value]) {
    if (one === undefined || one === null) continue;
    query.append(key, String(one));
  }
}

function keysOf(schema: { shape?: Record<string, unknown> } | undefined): Set<string> {
  return new Set(schema?.shape ? Object.keys(schema.shape) : []);
}
