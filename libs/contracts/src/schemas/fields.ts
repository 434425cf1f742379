/**
 * Field builders for form-encoded or JSON request bodies. Messages follow the spec's
 * validation style (`<Field> can't be blank`), so a schema's issues can be shown as `details`.
 */
import { z } from 'zod';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
const blankToUndefined = (v: unknown) => {
  const t = trimmed(v);
  return t === '' || t === null ? undefined : t;
};
/** Absent or blank means "no value" (null), so an update can clear the field. */
const blankToNull = (v: unknown) => {
  const t = trimmed(v);
  return t === '' ? null : t;
};
const lowerCase = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

export function requiredText(label: string, max = 255) {
  return z.preprocess(
    (v) => trimmed(v) ?? '',
    z
      .string({ error: `${label} is invalid` })
      .min(1, { error: `${label} can't be blank`, abort: true })
      .max(max, { error: `${label} is too long (maximum is ${max} characters)` }),
  );
}

/** Present-but-blank is an error; absent is fine (for updates of required fields). */
export function nonBlankTextIfPresent(label: string, max = 255) {
  return z.preprocess(
    trimmed,
    z
      .string({ error: `${label} is invalid` })
      .min(1, { error: `${label} can't be blank`, abort: true })
      .max(max, { error: `${label} is too long (maximum is ${max} characters)` })
      .optional(),
  );
}

export function optionalText(label: string, max = 255) {
  return z.preprocess(
    blankToNull,
    z
      .string({ error: `${label} is invalid` })
      .max(max, { error: `${label} is too long (maximum is ${max} characters)` })
      .nullable()
      .optional(),
  );
}

export function requiredEmail(label: string) {
  return z.preprocess(
    (v) => lowerCase(trimmed(v) ?? ''),
    z
      .string({ error: `${label} is invalid` })
      .min(1, { error: `${label} can't be blank`, abort: true })
      .max(254, { error: `${label} is invalid`, abort: true })
      .regex(EMAIL, { error: `${label} is invalid` }),
  );
}

export function optionalEmail(label: string) {
  return z.preprocess(
    (v) => lowerCase(blankToNull(v)),
    z
      .string({ error: `${label} is invalid` })
      .max(254, { error: `${label} is invalid`, abort: true })
      .regex(EMAIL, { error: `${label} is invalid` })
      .nullable()
      .optional(),
  );
}

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'off', 'no']);

export function optionalBoolean(label: string) {
  return z.preprocess(
    (v) => {
      const t = blankToUndefined(v);
      if (typeof t !== 'string') return t;
      if (TRUE_WORDS.has(t.toLowerCase())) return true;
      if (FALSE_WORDS.has(t.toLowerCase())) return false;
      return t;
    },
    z.boolean({ error: `${label} must be true or false` }).optional(),
  );
}

export function optionalEnum<const T extends readonly [string, ...string[]]>(
  label: string,
  values: T,
) {
  return z.preprocess(
    blankToUndefined,
    z.enum(values, { error: `${label} is not included in the list` }).optional(),
  );
}

interface NumberBounds {
  min?: number;
  max?: number;
}

/** Whole number from a JSON number or a form string; blank means absent. */
export function optionalInteger(label: string, opts: NumberBounds = {}) {
  const integer = z.number({ error: `${label} is not a number` }).int({
    error: `${label} must be an integer`,
  });
  return optionalBounded(integer, label, opts);
}

export function optionalNumber(label: string, opts: NumberBounds = {}) {
  return optionalBounded(z.number({ error: `${label} is not a number` }), label, opts);
}

/** `schema` within the bounds given, from a JSON number or a form string; blank means absent. */
function optionalBounded(schema: z.ZodNumber, label: string, opts: NumberBounds) {
  if (opts.min !== undefined)
    schema = schema.min(opts.min, {
      error: `${label} must be greater than or equal to ${opts.min}`,
    });
  if (opts.max !== undefined)
    schema = schema.max(opts.max, { error: `${label} must be less than or equal to ${opts.max}` });
  return z.preprocess(toNumber, schema.nullable().optional());
}

function toNumber(v: unknown): unknown {
  const t = blankToNull(v);
  if (typeof t !== 'string') return t;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

export function optionalHttpUrl(label: string) {
  return z.preprocess(
    blankToNull,
    z
      .string({ error: `${label} is invalid` })
      .max(2048, { error: `${label} is too long`, abort: true })
      .refine(isHttpUrl, { error: `${label} must be an absolute http(s) URL` })
      .nullable()
      .optional(),
  );
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function optionalCurrency(label: string) {
  return z.preprocess(
    (v) => {
      const t = blankToNull(v);
      return typeof t === 'string' ? t.toUpperCase() : t;
    },
    z
      .string({ error: `${label} is invalid` })
      .regex(/^[A-Z]{3}$/, { error: `${label} must be a three-letter ISO code` })
      .nullable()
      .optional(),
  );
}

export const LINK_TOKEN = /^[A-Za-z0-9-]+$/;

export function optionalToken(label: string) {
  return z.preprocess(
    blankToUndefined,
    z
      .string({ error: `${label} is invalid` })
      .max(64, { error: `${label} is too long (maximum is 64 characters)`, abort: true })
      .regex(LINK_TOKEN, { error: `${label} may only contain letters, numbers and dashes` })
      .optional(),
  );
}
