/**
 * Serves a service's request/reply operations on `rpc.<service>.<op>` through a queue group.
 * Handlers receive the decoded request and return `{status, body}`; an AppError becomes the
 * spec's error body, anything else a logged 500. Work is bounded by a fastq queue.
 */
import fastq from 'fastq';
import { SpanKind, SpanStatusCode, context, metrics, trace } from '@opentelemetry/api';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  HEADERS,
  operationsOfService,
  rpcQueueGroup,
  rpcRequestSchema,
  rpcSubject,
} from '@aff/contracts';
import type { OperationNameOf, RpcReply, RpcRequest, ServiceName } from '@aff/contracts';
import { isAppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { extractTraceContext } from './trace-context';
import { decodeJson, encodeJson } from './json';

export interface RpcContext {
  requestId: string;
  log: Logger;
}
export type RpcHandler = (request: RpcRequest, ctx: RpcContext) => Promise<RpcReply>;

/** A service's handler table: one handler per operation the contract map gives the service. */
export type RpcHandlers<S extends ServiceName> = Record<OperationNameOf<S>, RpcHandler>;

/**
 * The table must match the contract map exactly: a missing handler would answer 404 to a route
 * the gateway serves, an extra one is an operation nobody can find. Spread tables escape the
 * compiler's excess-key check, hence this check at start.
 */
export function checkHandlers(service: ServiceName, handlers: Record<string, RpcHandler>): void {
  const declared = new Set(operationsOfService(service).map((operation) => operation.name));
  const missing = [...declared].filter((name) => !Object.hasOwn(handlers, name));
  const extra = Object.keys(handlers).filter((name) => !declared.has(name));
  if (missing.length || extra.length) {
    throw new Error(
      `RPC handlers of ${service} do not match the contract map:` +
        (missing.length ? ` missing ${missing.join(', ')}.` : '') +
        (extra.length ? ` not in the map: ${extra.join(', ')}.` : ''),
    );
  }
}

const tracer = trace.getTracer('@aff/messaging');
/** Semantic conventions' RPC server duration, per operation and reply status. */
const callDuration = metrics
  .getMeter('@aff/messaging')
  .createHistogram('rpc.server.call.duration', {
    unit: 's',
    description: 'Duration of NATS request/reply operations served',
  });

/** Serves a service's operations, typed and checked against the contract map. */
export function serveRpc<S extends ServiceName>(
  nc: NatsConnection,
  service: S,
  handlers: RpcHandlers<S>,
  log: Logger,
  concurrency = 64,
): Subscription {
  checkHandlers(service, handlers);
  return serveHandlers(nc, service, handlers, log, concurrency);
}

/** The transport under `serveRpc`, for any table (tests of the RPC layer itself). */
export function serveHandlers(
  nc: NatsConnection,
  service: ServiceName,
  handlers: Record<string, RpcHandler>,
  log: Logger,
  concurrency = 64,
): Subscription {
  const prefix = rpcSubject(service, '');
  const queue = fastq.promise((msg: Msg) => handleOne(msg), concurrency);

  async function handleOne(msg: Msg): Promise<void> {
    const operation = msg.subject.slice(prefix.length);
    const startedAt = performance.now();
    const requestId = msg.headers?.get(HEADERS.requestId) || 'none';
    const reqLog = log.child({ requestId, rpc: msg.subject });
    const parent = extractTraceContext(msg.headers);
    const span = tracer.startSpan(
      `${msg.subject} process`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': msg.subject,
          'messaging.operation.type': 'process',
        },
      },
      parent,
    );
    const reply = await context.with(trace.setSpan(parent, span), () =>
      dispatch(operation, msg, { requestId, log: reqLog }),
    );
    span.setAttribute('rpc.reply.status', reply.status);
    if (reply.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    msg.respond(encodeJson(reply));
    callDuration.record((performance.now() - startedAt) / 1000, {
      'rpc.system': 'nats',
      'rpc.service': service,
      // Unknown operations share one label value, so callers cannot grow the series count.
      'rpc.method': Object.hasOwn(handlers, operation) ? operation : 'unknown',
      'rpc.response.status_code': reply.status,
    });
  }

  async function dispatch(operation: string, msg: Msg, ctx: RpcContext): Promise<RpcReply> {
    const handler = Object.hasOwn(handlers, operation) ? handlers[operation] : undefined;
    if (!handler) return { status: 404, body: { error: `Unknown operation: ${operation}` } };
    try {
      const request = rpcRequestSchema.parse(decodeJson(msg.data));
      return await handler(request, ctx);
    } catch (error) {
      if (isAppError(error)) return { status: error.status, body: error.toBody() };
      ctx.log.error({ err: error }, 'rpc handler failed');
      return { status: 500, body: { error: 'Internal server error.' } };
    }
  }

  return nc.subscribe(`${prefix}*`, {
    queue: rpcQueueGroup(service),
    callback: (err, msg) => {
      if (err) {
        log.error({ err }, 'rpc subscription error');
        return;
      }
      queue.push(msg).catch((error: unknown) => log.error({ err: error }, 'rpc dispatch failed'));
    },
  });
}

export const ok = <T>(body: T, status = 200): RpcReply<T> => ({ status, body });
