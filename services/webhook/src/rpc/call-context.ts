import { newRecordId, type RpcRequest } from '@aff/contracts';
import type { CallContext } from '../domain/ports';

export function callContext(request: RpcRequest): CallContext {
  return {
    merchantId: request.merchant_id,
    newId: (kind) => newRecordId(request.idempotency_seed, kind),
    mayBeRerun: request.idempotency_seed !== undefined,
  };
}

/** The `:id` path parameter; the gateway always sends it for routes that have one. */
export function idParam(request: RpcRequest): string {
  return request.params.id ?? '';
}
