/**
 * Ties an operation's export key to its `name`. The key is what handler tables and the gateway's
 * route table use; the name is what the NATS subject and the OpenAPI operationId use. Each is
 * written by hand, so this makes a difference between them a compile error rather than a 404.
 */
import type { Operation } from './operation';

/** Every entry's `name` must be its own key (`listPayouts: { name: 'listPayouts', ... }`). */
export type NamedByKey<M> = { readonly [K in keyof M]: { readonly name: K } };

/**
 * Returns the map as it is. A map where an operation's `name` differs from its key does not
 * compile: `Type '"listPayoutz"' is not assignable to type '"listPayouts"'`.
 */
export function keyedByName<M extends Record<string, Operation>>(map: M & NamedByKey<M>): M {
  return map;
}
