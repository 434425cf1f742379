/** Pieces shared by many operations: the `:id` parameter, pagination, `expand`, filters. */
import { z } from 'zod';

export const idParams = z.object({
  id: z.string().describe('UUID of the record'),
});

/** `page` and `limit` as the spec states them: default limit 25, maximum 100. */
export const pageQuery = {
  page: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/)
    .describe('Page number to fetch (a positive whole number; default 1)')
    .optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/)
    .describe(
      'Objects per page (a positive whole number; default 25, larger values are capped at 100)',
    )
    .optional(),
};

/** `a`, or `a,b`: one or several of the values, comma-separated. */
function commaList(values: readonly string[]) {
  const one = `(?:${values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
  return z.string().regex(new RegExp(`^${one}(?:,${one})*$`));
}

/**
 * `expand=<name>` (one name, or several separated by commas) and `expand[]=<name>` repeated.
 * Both are documented so a generated client may use either form.
 */
export function expandQuery<const T extends readonly [string, ...string[]]>(names: T) {
  return {
    expand: commaList(names)
      .describe(`Related object to expand: ${names.join(', ')} (comma-separate several)`)
      .optional(),
    'expand[]': z
      .array(z.enum(names))
      .describe(`Related objects to expand, repeated: ${names.join(', ')}`)
      .optional(),
  };
}

/** A filter that takes one or more values: `name=a`, `name=a,b` or `name[]=a&name[]=b`. */
export function multiValueQuery<
  const N extends string,
  const T extends readonly [string, ...string[]],
>(name: N, values: T) {
  const one = commaList(values)
    .describe(`One of ${values.join(', ')} (comma-separate several)`)
    .optional();
  const several = z
    .array(z.enum(values))
    .describe(`Several of ${values.join(', ')}`)
    .optional();
  // Computed keys would widen to an index signature; naming them keeps `state` and `state[]`
  // in the query's type (the typed client, libs/client, builds its input from it).
  return { [name]: one, [`${name}[]`]: several } as { [K in N]: typeof one } & {
    [K in `${N}[]`]: typeof several;
  };
}

/** A single-valued string filter. */
export const filter = (description: string) => z.string().describe(description).optional();

/** What `DELETE` answers. */
export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });
