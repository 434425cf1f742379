/**
 * The one application error type. Services throw it; the RPC layer turns it into a reply with
 * the spec's error body; consumers use `retryable` to choose between nak (retry) and term.
 */
import type { ErrorBody } from '@aff/contracts';

export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: string[],
    readonly retryable = code === 'unavailable' || code === 'timeout',
  ) {
    super(message);
    this.name = 'AppError';
    this.status = STATUS[code];
  }

  toBody(): ErrorBody {
    return this.details ? { error: this.message, details: this.details } : { error: this.message };
  }
}

export const errors = {
  notFound: (resource: string, id: string) =>
    new AppError('not_found', `${resource} not found: ${id}`),
  invalid: (message: string, details: string[]) => new AppError('unprocessable', message, details),
  badRequest: (message: string) => new AppError('bad_request', message),
};

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * The AppError an error reply stands for, so a service calling another sees the same error the
 * callee threw (status, message, details). An unknown status counts as internal. A 5xx is the
 * callee's trouble, not the caller's input, so it stays retryable for event consumers.
 */
export function appErrorFromReply(status: number, body: unknown): AppError {
  const code = (Object.keys(STATUS) as ErrorCode[]).find((key) => STATUS[key] === status);
  const reply = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    details?: unknown;
  };
  const message = typeof reply.error === 'string' ? reply.error : `Reply with status ${status}`;
  const details = Array.isArray(reply.details)
    ? reply.details.filter((detail): detail is string => typeof detail === 'string')
    : undefined;
  return new AppError(code ?? 'internal', message, details, status >= 500);
}
