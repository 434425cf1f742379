import { newRecordId, type RpcRequest } from '@aff/contracts';
import { currentEventContext, type RpcContext } from '@aff/messaging';
import type { CallContext } from '../domain/ports';

export function callContext(request: RpcRequest, rpc: RpcContext): CallContext {
  return {
    merchantId: request.merchant_id,
    events: currentEventContext(rpc.requestId),
    newId: (kind) => newRecordId(request.idempotency_seed, kind),
    mayBeRerun: request.idempotency_seed !== undefined,
  };
}

/** For internal operations: no request envelope, so no Idempotency-Key either. */
export function internalCallContext(merchantId: string, rpc: RpcContext): CallContext {
  return {
    merchantId,
    events: currentEventContext(rpc.requestId),
    newId: (kind) => newRecordId(undefined, kind),
    mayBeRerun: false,
  };
}

/** The `:id` path parameter; the gateway always sends it for routes that have one. */
export function idParam(request: RpcRequest): string {
  return request.params.id ?? '';
}
