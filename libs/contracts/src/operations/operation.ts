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
}

export interface Operation {
  /** Unique across the map; also the operationId and the last part of the NATS subject. */
  name: string;
  owner: Owner;
  auth: Auth;
  summary: string;
  description?: string;
  /** Absent for `internal` operations. */
  http?: HttpRoute;
  /** Grouping in the reference (OpenAPI tag). */
  tag?: string;
  params?: z.ZodObject;
  /** Request headers the operation reads (beyond authorization and content-type). */
  headers?: z.ZodObject;
  /**
   * Query parameters as the client sends them (strings, or arrays for `name[]`). The services
   * parse and check them; these schemas document the wire format.
   */
  query?: z.ZodObject;
  /** Request body; form-encoded or JSON. Validation messages come from these same schemas. */
  body?: z.ZodType;
  response: SuccessResponse;
  /** Error statuses this operation answers besides those every route of its auth can answer. */
  errors: readonly number[];
}

/** Keeps the literal `name` and `owner`, so handler tables can be typed by service. */
export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}
