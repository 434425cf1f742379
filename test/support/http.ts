/**
 * A small HTTP client for the gateway, as a merchant's integration would use it. Every answer
 * is checked against the OpenAPI document (./conformance): one that does not match throws.
 */
import { nonConformance } from './conformance';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function gatewayUrl(): string {
  const url = process.env.GATEWAY_URL;
  if (!url)
    throw new Error('GATEWAY_URL is not set: run through jest (global setup starts the system)');
  return url;
}

export function basicAuth(secret: string): string {
  return `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
}

export async function request<T = any>(
  method: string,
  path: string,
  opts: {
    secret?: string;
    form?: Record<string, string | string[]>;
    json?: unknown;
    headers?: Record<string, string>;
    rawBody?: string;
    baseUrl?: string;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.secret !== undefined) headers.authorization = basicAuth(opts.secret);
  let body: string | undefined = opts.rawBody;
  if (opts.form) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(opts.form)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
    }
    body = params.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
  }
  const url = `${opts.baseUrl ?? gatewayUrl()}${path}`;
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text so a test can show it
  }
  const mismatch = nonConformance(method, url, res.status, res.headers.get('content-type'), parsed);
  if (mismatch) throw new Error(`Response does not conform to the API contract: ${mismatch}`);
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A merchant-bound client. */
export function api(secret: string, baseUrl?: string) {
  return {
    get: <T = any>(path: string) => request<T>('GET', path, { secret, baseUrl }),
    post: <T = any>(path: string, form: Record<string, string | string[]>) =>
      request<T>('POST', path, { secret, form, baseUrl }),
    postJson: <T = any>(path: string, json: unknown) =>
      request<T>('POST', path, { secret, json, baseUrl }),
    put: <T = any>(path: string, form: Record<string, string | string[]>) =>
      request<T>('PUT', path, { secret, form, baseUrl }),
    putJson: <T = any>(path: string, json: unknown) =>
      request<T>('PUT', path, { secret, json, baseUrl }),
    delete: <T = any>(path: string) => request<T>('DELETE', path, { secret, baseUrl }),
  };
}
