/** Pieces shared by many operations: the `:id` parameter, pagination, `expand`, filters. */
import { z } from 'zod';

export const idParams = z.object({
  id: z.string().describe('UUID of the record'),
});

/*
 * Query parameters. These schemas are what the RPC server checks a list's query string with
 * before the handler runs (400 with the first message; see `parseQuery` in @aff/messaging), and
 * what the OpenAPI document shows. Their input is the wire format (strings; a `name[]` array is
 * joined into `name` first), their output the typed values the handler receives. Messages name
 * the parameter through the issue's path, so one builder serves every name.
 */

/** The parameter's name, from the issue's path (`email`). */
const named = (issue: { path?: PropertyKey[] }): string =>
  (issue.path ?? []).map(String).join('.') || 'query parameter';

const POSITIVE_WHOLE = /^[1-9][0-9]{0,8}$/;

function positiveWhole(description: string) {
  const message = (issue: { path?: PropertyKey[] }) =>
    `${named(issue)} must be a positive whole number`;
  return z
    .string({ error: message })
    .regex(POSITIVE_WHOLE, { error: message })
    .describe(description)
    .transform(Number)
    .optional();
}

/** `page` and `limit` as the spec states them: default limit 25, maximum 100. */
export const pageQuery = {
  page: positiveWhole('Page number to fetch (a positive whole number; default 1)'),
  limit: positiveWhole(
    'Objects per page (a positive whole number; default 25, larger values are capped at 100)',
  ),
};

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `a`, or `a,b`: one or several of the values, comma-separated, as a deduplicated list. A name
 * outside `values` gets `unknownMessage(names not allowed, path)`; the pattern documents the form.
 */
function commaList<const T extends readonly [string, ...string[]]>(
  values: T,
  unknownMessage: (unknown: string[], issue: { path?: PropertyKey[] }) => string,
) {
  const one = `(?:${values.map(escapeRegex).join('|')})`;
  const split = (text: string) => text.split(',');
  const unknownIn = (input: unknown) =>
    typeof input === 'string'
      ? split(input).filter((v) => !(values as readonly string[]).includes(v))
      : [];
  const message = (issue: { input?: unknown; path?: PropertyKey[] }) =>
    unknownMessage(unknownIn(issue.input), issue);
  return z
    .string({ error: message })
    .refine((text) => unknownIn(text).length === 0, { error: message })
    .regex(new RegExp(`^${one}(?:,${one})*$`), { error: message })
    .transform((text) => [...new Set(split(text))] as T[number][]);
}

/**
 * The documented `name[]` form of a multi-valued parameter. Express's query parser delivers it
 * as an array under `name`, and the RPC server joins it into `name` before checking, so it never
 * reaches a handler (output `undefined`); it is declared so clients may use either form.
 */
function repeatedForm<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
) {
  return z
    .array(z.enum(values))
    .describe(description)
    .optional()
    .transform((): undefined => undefined);
}

/**
 * `expand=<name>` (one name, or several separated by commas) and `expand[]=<name>` repeated.
 * Both are documented so a generated client may use either form; the handler receives
 * `expand` as the list of names.
 */
export function expandQuery<const T extends readonly [string, ...string[]]>(names: T) {
  return {
    expand: commaList(
      names,
      (unknown) =>
        `Unknown expand: ${unknown.map((name) => name || '(empty)').join(', ')}. Allowed: ${names.join(', ')}`,
    )
      .describe(`Related object to expand: ${names.join(', ')} (comma-separate several)`)
      .optional(),
    'expand[]': repeatedForm(names, `Related objects to expand, repeated: ${names.join(', ')}`),
  };
}

/**
 * A filter that takes one or more values: `name=a`, `name=a,b` or `name[]=a&name[]=b`; the
 * handler receives `name` as the list of values.
 */
export function multiValueQuery<
  const N extends string,
  const T extends readonly [string, ...string[]],
>(name: N, values: T) {
  const one = commaList(
    values,
    (_unknown, issue) => `${named(issue)} must be one of: ${values.join(', ')}`,
  )
    .describe(`One of ${values.join(', ')} (comma-separate several)`)
    .optional();
  const several = repeatedForm(values, `Several of ${values.join(', ')}`);
  // Computed keys would widen to an index signature; naming them keeps `state` and `state[]`
  // in the query's type (the typed client, libs/client, builds its input from it).
  return { [name]: one, [`${name}[]`]: several } as { [K in N]: typeof one } & {
    [K in `${N}[]`]: typeof several;
  };
}

/** A single-valued string filter; a repeated or nested value is a 400, not a crash. */
export const filter = (description: string) =>
  z
    .string({ error: (issue) => `${named(issue)} must be a single value` })
    .describe(description)
    .optional();

/** A single-valued ISO 8601 timestamp filter, handed on as a `Date`. */
export const timestampFilter = (description: string) =>
  z
    .string({ error: (issue) => `${named(issue)} must be a single value` })
    .refine((text) => !Number.isNaN(new Date(text).getTime()), {
      error: (issue) => `${named(issue)} must be an ISO 8601 timestamp`,
    })
    .meta({ format: 'date-time', description })
    .transform((text) => new Date(text))
    .optional();

/** What `DELETE` answers. */
export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });
