/**
 * The shape of one entry of the contract map: an operation declared once, with its route, who
 * may call it, and zod schemas for what goes in and what comes out. The gateway's routes, the
 * NATS subject, the handler table's keys and the OpenAPI document are all derived from it.
 */
import type { z } from 'zod';
import type { ServiceName } from '../subjects';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call an operation:
 * - `apiSecret`: HTTP Basic with the merchant's API secret (every `/v1` route).
 * - `publicKey`: the merchant's public key in the body (`key`), for merchants' web pages.
 * - `signedHook`: the payment processor's `Processor-Signature` header over the raw body.
 * - `none`: no credentials (the tracker script, this document).
 * - `internal`: not on HTTP at all; only other services call it over NATS.
 */
export type Auth = 'apiSecret' | 'publicKey' | 'signedHook' | 'none' | 'internal';

/** Who answers: a service over NATS request/reply, or the gateway itself. */
export type Owner = ServiceName | 'gateway';

export interface HttpRoute {
  method: HttpMethod;
  /** Express-style path (`/v1/affiliates/:id`). */
  path: string;
  /** Further methods served by the same handler on the same path (PATCH next to PUT). */
  aliases?: readonly HttpMethod[];
}

export interface SuccessResponse {
  status: number;
  description: string;
  /** JSON body; absent when the body is not JSON (see `contentType`). */
  body?: z.ZodType;
  /** Defaults to `application/json`. */
  contentType?: string;
  /**
   * A file download: the service answers `FileReply` (`{filename, content}`) and the gateway
   * sends `content` as `contentType`, as an attachment named `filename`.
   */
  file?: boolean;
}

interface OperationBase {
  /** Unique across the map; also the operationId and the last part of the NATS subject. */
  name: string;
  owner: Owner;
  summary: string;
  description?: string;
  /** Grouping in the reference (OpenAPI tag). */
  tag?: string;
  response: SuccessResponse;
  /** Error statuses this operation answers besides those every route of its auth can answer. */
  errors: readonly number[];
}

/** An operation of the API: reached over HTTP, sent to its service in the RPC request envelope. */
export interface PublicOperation extends OperationBase {
  auth: Exclude<Auth, 'internal'>;
  http?: HttpRoute;
  params?: z.ZodObject;
  /** Request headers the operation reads (beyond authorization and content-type). */
  headers?: z.ZodObject;
  /**
   * Query parameters: input as the client sends them (strings; `name[]` for repeated values),
   * output as the handler receives them (numbers, lists, dates). The RPC server checks the query
   * with it before the handler runs (400 with the first message), builders in `./common`.
   */
  query?: z.ZodObject;
  /** Request body; form-encoded or JSON. Validation messages come from these same schemas. */
  body?: z.ZodType;
  /**
   * The headline of the 422 when the body fails `body` (`Could not create affiliate.`). With it,
   * the serving side checks the body before the handler runs, and the handler receives the
   * parsed value (`ValidatedBody`). Without it (a body whose rules depend on the service's
   * configuration), the handler checks the body itself.
   */
  invalid?: string;
  input?: never;
}

/** What a public operation's handler receives as `body`: parsed when the map checks it. */
export type ValidatedBody<O extends PublicOperation> = O extends {
  body: z.ZodType;
  invalid: string;
}
  ? z.output<O['body']>
  : unknown;

/** What a public operation's handler receives as `query`: parsed when the map declares it. */
export type ParsedQuery<O extends PublicOperation> = O extends { query: z.ZodObject }
  ? z.output<O['query']>
  : Record<string, unknown>;

/**
 * An operation only other services call over NATS (see docs/contract.md, "Internal
 * operations"): no route, no HTTP envelope. `input` is the whole request, validated by the
 * serving side; the reply body is validated by the caller (`callInternal` in @aff/messaging).
 */
export interface InternalOperation extends OperationBase {
  auth: 'internal';
  owner: ServiceName;
  input: z.ZodObject;
  response: SuccessResponse & { body: z.ZodType };
  http?: never;
  params?: never;
  headers?: never;
  query?: never;
  body?: never;
  invalid?: never;
}

export type Operation = PublicOperation | InternalOperation;

/** What the caller of an internal operation passes (before the schema's defaults). */
export type InternalInput<O extends InternalOperation> = z.input<O['input']>;
/** What its handler receives: the input as validated by the schema. */
export type InternalParsedInput<O extends InternalOperation> = z.output<O['input']>;
/** What its handler returns, before the caller validates it. */
export type InternalResult<O extends InternalOperation> = z.input<O['response']['body']>;
/** What the caller gets back: the reply body as validated by the schema. */
export type InternalReplyBody<O extends InternalOperation> = z.output<O['response']['body']>;

/** Keeps the literal `name` and `owner`, so handler tables can be typed by service. */
export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}
