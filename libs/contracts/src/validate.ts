/** Runs a request schema and turns its issues into the spec's `details` strings. */
import type { z } from 'zod';

export type Validated<T> = { ok: true; value: T } | { ok: false; details: string[] };

export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.infer<S>> {
  const body = input === undefined || input === null ? {} : input;
  if (typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, details: ['Request body must be an object'] };
  }
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const details = [...new Set(result.error.issues.map((issue) => issue.message))];
  return { ok: false, details };
}
