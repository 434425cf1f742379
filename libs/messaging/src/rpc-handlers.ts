/**
 * The types of a service's RPC handlers, per operation of the contract map: what a public
 * operation's handler gets and answers, an internal operation's, and a service's whole table.
 */
import type {
  FileReply,
  InternalOperation,
  InternalParsedInput,
  InternalResult,
  OperationMap,
  OperationNameOf,
  ParsedQuery,
  PublicOperation,
  RpcReply,
  RpcRequest,
  ServiceName,
  ValidatedBody,
} from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { z } from 'zod';

export interface RpcContext {
  requestId: string;
  log: Logger;
}
/** Handler of a public operation: the gateway's request envelope in, status and body out. */
export type RpcHandler = (request: RpcRequest, ctx: RpcContext) => Promise<RpcReply>;

/**
 * The request envelope of a public operation: its path parameters as the map declares them
 * (checked), its query parsed by the map's schema, its body as the map checked it.
 */
export type PublicRequest<O extends PublicOperation> = Omit<
  RpcRequest,
  'body' | 'params' | 'query'
> & {
  params: O['params'] extends z.ZodObject ? z.output<O['params']> : Record<string, never>;
  query: ParsedQuery<O>;
  body: ValidatedBody<O>;
};

/** Handler of one public operation of the map: its request in, status and body out. */
export type PublicHandler<O extends PublicOperation> = (
  request: PublicRequest<O>,
  ctx: RpcContext,
) => Promise<RpcReply<PublicResult<O>>>;

/** What a public operation's handler answers as the body: the map's response schema's input. */
export type PublicResult<O extends PublicOperation> = O['response'] extends { body: z.ZodType }
  ? z.input<O['response']['body']>
  : O['response'] extends { file: true }
    ? FileReply
    : unknown;

/** Handler of an internal operation: its validated input in, the reply body out. */
export type InternalHandler<O extends InternalOperation> = (
  input: InternalParsedInput<O>,
  ctx: RpcContext,
) => Promise<InternalResult<O>>;

/** A service's handler table: one handler per operation the contract map gives the service. */
export type RpcHandlers<S extends ServiceName> = {
  [K in OperationNameOf<S>]: OperationMap[K] extends InternalOperation
    ? InternalHandler<OperationMap[K]>
    : OperationMap[K] extends PublicOperation
      ? PublicHandler<OperationMap[K]>
      : never;
};
