/**
 * The spec's error answers as exceptions. Every error body is `{ error, details? }` (spec §7);
 * the class says which family of status it is, so a caller can `catch` by kind:
 *
 *   try { await client.affiliates.get({ id }) }
 *   catch (e) { if (e instanceof NotFoundError) ... }
 */

/** What the API answers on failure (spec §7): `error`, and `details` for validation errors. */
export interface ApiErrorBody {
  error: string;
  details?: string[];
}

export interface ApiErrorInit {
  status: number;
  body: ApiErrorBody;
  headers: Headers;
  method: string;
  path: string;
}

/** An answer with a 4xx or 5xx status. */
export class ApiError extends Error {
  readonly status: number;
  /** The body's `error` string, as the API wrote it (e.g. `Affiliate not found: <id>`). */
  readonly error: string;
  /** The body's `details` (validation messages such as `Email can't be blank`), if any. */
  readonly details?: string[];
  readonly body: ApiErrorBody;
  readonly headers: Headers;
  /** `X-Request-Id` of the answer, for support requests and logs. */
  readonly requestId: string | null;
  readonly method: string;
  readonly path: string;

  constructor(init: ApiErrorInit) {
    super(`${init.method} ${init.path} answered ${init.status}: ${init.body.error}`);
    this.name = new.target.name;
    this.status = init.status;
    this.error = init.body.error;
    if (init.body.details !== undefined) this.details = init.body.details;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.headers.get('x-request-id');
    this.method = init.method;
    this.path = init.path;
  }
}

/** 400, 413, 415, 422: the request itself is wrong; retrying it unchanged fails again. */
export class InvalidRequestError extends ApiError {}

/** 401: missing or invalid API secret (`Invalid API Secret.`). */
export class AuthenticationError extends ApiError {}

/** 404: the record does not exist (or belongs to another merchant). */
export class NotFoundError extends ApiError {}

/** 409: a request with the same `Idempotency-Key` is still running; retry after `retryAfterSeconds`. */
export class ConflictError extends ApiError {
  readonly retryAfterSeconds: number | null;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfterSeconds = retryAfter(init.headers);
  }
}

/** 429: over the merchant's rate limit; the RateLimit header fields say when to retry. */
export class RateLimitError extends ApiError {
  /** Seconds until a retry may succeed (`Retry-After`, else the `t` of `RateLimit`). */
  readonly retryAfterSeconds: number | null;
  /** Requests per window (`q` of `RateLimit-Policy`). */
  readonly limit: number | null;
  /** Requests left in the window (`r` of `RateLimit`). */
  readonly remaining: number | null;
  /** Window length in seconds (`w` of `RateLimit-Policy`). */
  readonly windowSeconds: number | null;

  constructor(init: ApiErrorInit) {
    super(init);
    const rateLimit = init.headers.get('ratelimit');
    const policy = init.headers.get('ratelimit-policy');
    this.retryAfterSeconds = retryAfter(init.headers) ?? parameter(rateLimit, 't');
    this.remaining = parameter(rateLimit, 'r');
    this.limit = parameter(policy, 'q');
    this.windowSeconds = parameter(policy, 'w');
  }
}

/** 5xx: the API or a service behind it failed or timed out; the request may not have run. */
export class ServerError extends ApiError {}

/** No answer at all: the connection failed or the client's timeout passed. */
export class ApiConnectionError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The client's `timeoutMs` passed before the answer came. */
export class ApiTimeoutError extends ApiConnectionError {}

/** The exception for an error answer. */
export function errorFor(init: ApiErrorInit): ApiError {
  const { status } = init;
  if (status === 401) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  if (status === 400 || status === 413 || status === 415 || status === 422) {
    return new InvalidRequestError(init);
  }
  return new ApiError(init);
}

/** The error body as the spec states it; anything else (a proxy's HTML page) is wrapped. */
export function errorBodyOf(parsed: unknown, text: string, status: number): ApiErrorBody {
  if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
    const { error, details } = parsed as { error: unknown; details?: unknown };
    if (typeof error === 'string') {
      const body: ApiErrorBody = { error };
      if (Array.isArray(details) && details.every((d) => typeof d === 'string')) {
        body.details = details;
      }
      return body;
    }
  }
  return { error: text.trim() ? text.trim().slice(0, 500) : `HTTP ${status}` };
}

function retryAfter(headers: Headers): number | null {
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** A numeric parameter of a structured header field: `"default";r=0;t=12` → r = 0. */
function parameter(field: string | null, name: string): number | null {
  if (field === null) return null;
  const match = new RegExp(`;\\s*${name}=(\\d+)`).exec(field);
  return match ? Number(match[1]) : null;
}
