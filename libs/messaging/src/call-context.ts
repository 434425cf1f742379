/**
 * The one call context every service's use cases take, and the helpers RPC entry points build it
 * with (so no service keeps its own copy).
 */
import { newRecordId, type RpcRequest } from '@aff/contracts';
import { currentEventContext, type EventContext } from './event-publisher';
import type { RpcContext } from './rpc-server';

/** Who is asking: the tenant, and the trace/request context the events it causes carry. */
export interface CallContext {
  merchantId: string;
  events: EventContext;
  /**
   * The id for a record this call creates: derived from the call's Idempotency-Key when it has
   * one (a re-run after a lost answer gets the same id), random otherwise.
   */
  newId(kind: string): string;
  /** The call has an Idempotency-Key, so it may re-run one whose answer was lost. */
  mayBeRerun: boolean;
}

/** The context of an RPC call made through the gateway (its request envelope). */
export function callContext(request: RpcRequest, rpc?: Pick<RpcContext, 'requestId'>): CallContext {
  return {
    merchantId: request.merchant_id,
    events: currentEventContext(rpc?.requestId),
    newId: (kind) => newRecordId(request.idempotency_seed, kind),
    mayBeRerun: request.idempotency_seed !== undefined,
  };
}

/**
 * The context of work with no request envelope, so no Idempotency-Key either: an internal
 * operation, an event handler, a scheduler tick. `events` defaults to the current trace.
 */
export function internalCallContext(
  merchantId: string,
  events: EventContext = currentEventContext(),
): CallContext {
  return {
    merchantId,
    events,
    newId: (kind) => newRecordId(undefined, kind),
    mayBeRerun: false,
  };
}

/** The `:id` path parameter; the gateway always sends it for routes that have one. */
export function idParam(request: RpcRequest): string {
  return request.params.id ?? '';
}
