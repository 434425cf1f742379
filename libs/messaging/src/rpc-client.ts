/**
 * Calls a service operation over NATS request/reply. A missing service becomes a 503 and a
 * slow one a 504, so the gateway never hangs on a dead replica.
 */
import { SpanKind, context, trace } from '@opentelemetry/api';
import { RequestError, TimeoutError, headers as createHeaders } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import { HEADERS, rpcSubject } from '@aff/contracts';
import type { RpcReply, RpcRequest, ServiceName } from '@aff/contracts';
import { AppError } from '@aff/api';
import { injectTraceContext } from './trace-context';
import { decodeJson, encodeJson } from './json';

const tracer = trace.getTracer('@aff/messaging');

export class RpcClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  /** A public operation, with the HTTP envelope the gateway built. */
  async call(
    service: ServiceName,
    operation: string,
    request: RpcRequest,
    requestId: string,
  ): Promise<RpcReply> {
    return this.send(service, operation, request, requestId, request.merchant_id);
  }

  /**
   * Any JSON payload as the request (internal operations send their input as is; see
   * `callInternal`). The reply is `{status, body}` either way.
   */
  async send(
    service: ServiceName,
    operation: string,
    payload: unknown,
    requestId: string,
    merchantId?: string,
  ): Promise<RpcReply> {
    const subject = rpcSubject(service, operation);
    const span = tracer.startSpan(`${subject} send`, {
      kind: SpanKind.CLIENT,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    });
    const ctx = trace.setSpan(context.active(), span);
    const hdrs = injectTraceContext(createHeaders(), ctx);
    hdrs.set(HEADERS.requestId, requestId);
    if (merchantId) hdrs.set(HEADERS.merchantId, merchantId);
    try {
      const msg = await this.nc.request(subject, encodeJson(payload), {
        timeout: this.timeoutMs,
        headers: hdrs,
      });
      return decodeJson(msg.data) as RpcReply;
    } catch (error) {
      throw toAppError(error, service);
    } finally {
      span.end();
    }
  }
}

function toAppError(error: unknown, service: ServiceName): AppError {
  if (error instanceof RequestError && error.isNoResponders()) {
    return new AppError('unavailable', `Service unavailable: ${service}. Try again shortly.`);
  }
  if (
    error instanceof TimeoutError ||
    (error instanceof Error && error.cause instanceof TimeoutError)
  ) {
    return new AppError('timeout', `Service timed out: ${service}. Try again shortly.`);
  }
  return new AppError('unavailable', `Service unavailable: ${service}. Try again shortly.`);
}
