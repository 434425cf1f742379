/** zod 4 → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), for requests or responses. */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * `input`: what a client may send (preprocessing steps are skipped, the checked shape shows);
 * `output`: what the API answers (objects list every key they may have, and no other).
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // Refinements and transforms have no JSON Schema form; the checked shape is documented.
    unrepresentable: 'any',
  }) as JsonSchema;
  delete json.$schema;
  return json;
}
