/**
 * Types derived from the contract map: which operations a merchant's API secret reaches, and
 * what each one takes and answers. Nothing here is written per operation; adding an operation
 * to the map adds it here (and `names.ts` then asks for a method name for it).
 */
import type { z } from 'zod';
import type { OperationMap, OperationName, Pagination } from '@aff/contracts';

/** Operations reachable with the merchant's API secret (HTTP Basic on `/v1`). */
export type MerchantOperationName = {
  [K in OperationName]: OperationMap[K]['auth'] extends 'apiSecret' ? K : never;
}[OperationName];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ParamsInput<O> = O extends { params: infer P extends z.ZodType } ? z.input<P> : unknown;

/** Query values are strings on the wire; `page` and `limit` may be given as numbers too. */
type QueryInput<O> = O extends { query: infer Q extends z.ZodType }
  ? { [K in keyof z.input<Q>]: K extends 'page' | 'limit' ? z.input<Q>[K] | number : z.input<Q>[K] }
  : unknown;

/**
 * The body as the service reads it after parsing (`z.output`): the input side of the services'
 * schemas is `unknown` (they also accept form strings), the output side is the typed record.
 */
type BodyInput<O> = O extends { body: infer B extends z.ZodType } ? z.output<B> : unknown;

/** One flat object: path parameters, query parameters and body fields side by side. */
export type OperationInput<K extends MerchantOperationName> = Simplify<
  ParamsInput<OperationMap[K]> & QueryInput<OperationMap[K]> & BodyInput<OperationMap[K]>
>;

/** The success body (`z.infer` of the operation's response schema). */
export type OperationOutput<K extends MerchantOperationName> = OperationMap[K]['response'] extends {
  body: infer B extends z.ZodType;
}
  ? z.output<B>
  : string;

/**
 * Lists: operations that take `page` and answer the spec's envelope (`pagination` + `data`).
 * `generatePayouts` answers the envelope too but is one write, not a list to page through.
 */
export type PaginatedOperationName = {
  [K in MerchantOperationName]: OperationOutput<K> extends {
    pagination: Pagination;
    data: unknown[];
  }
    ? 'page' extends keyof OperationInput<K>
      ? K
      : never
    : never;
}[MerchantOperationName];

export type ItemOf<K extends PaginatedOperationName> =
  OperationOutput<K> extends { data: (infer T)[] } ? T : never;

/** Writes (POST, PUT, PATCH) may carry an `Idempotency-Key`; reads and deletes need none. */
export type WriteOperationName = {
  [K in MerchantOperationName]: OperationMap[K]['http']['method'] extends 'post' | 'put' | 'patch'
    ? K
    : never;
}[MerchantOperationName];

/** Input is optional when nothing in it is required. */
export type HasRequiredInput<K extends MerchantOperationName> =
  Record<never, never> extends OperationInput<K> ? false : true;
