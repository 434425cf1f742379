/**
 * Serves a service's request/reply operations on `rpc.<service>.<op>` through a queue group.
 * Handlers of public operations receive the gateway's request envelope, its body already checked
 * against the operation's schema where the map says so (`invalid`), and return
 * `{status, body}`; handlers of internal operations receive their validated input and return
 * the reply body. An AppError becomes the spec's error body, anything else a logged 500. Work
 * is bounded by a fastq queue.
 */
import fastq from 'fastq';
import { SpanKind, SpanStatusCode, context, metrics, trace } from '@opentelemetry/api';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  HEADERS,
  isInternalOperation,
  operationsOfService,
  rpcQueueGroup,
  rpcRequestSchema,
  rpcSubject,
  validate,
} from '@aff/contracts';
import type {
  InternalOperation,
  Operation,
  PublicOperation,
  RpcReply,
  RpcRequest,
  ServiceName,
} from '@aff/contracts';
import { AppError, errors, isAppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { extractTraceContext } from './trace-context';
import { decodeJson, encodeJson } from './json';
import type { InternalHandler, RpcContext, RpcHandler, RpcHandlers } from './rpc-handlers';
import type { z } from 'zod';

export * from './rpc-handlers';

/** What the transport calls: the decoded payload in, `{status, body}` out. */
type WireHandler = (payload: unknown, ctx: RpcContext) => Promise<RpcReply>;

/**
 * The table must match the contract map exactly: a missing handler would answer 404 to a route
 * the gateway serves, an extra one is an operation nobody can find. Spread tables escape the
 * compiler's excess-key check, hence this check at start.
 */
export function checkHandlers(service: ServiceName, handlers: Record<string, unknown>): void {
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
  return serveOperations(
    nc,
    service,
    operationsOfService(service),
    handlers as Record<string, unknown>,
    log,
    concurrency,
  );
}

/**
 * Serves the given operations with their handlers, each in the way its kind takes (internal:
 * input validated by `operation.input`; public: the request envelope). For `serveRpc`, and for
 * tests of the RPC layer with operations outside the contract map.
 */
export function serveOperations(
  nc: NatsConnection,
  service: ServiceName,
  operations: readonly Operation[],
  handlers: Record<string, unknown>,
  log: Logger,
  concurrency = 64,
): Subscription {
  const wire: Record<string, WireHandler> = {};
  for (const operation of operations) {
    const handler = handlers[operation.name];
    if (typeof handler !== 'function') continue;
    wire[operation.name] = isInternalOperation(operation)
      ? internalWire(operation, handler as InternalHandler<InternalOperation>)
      : envelopeWire(handler as RpcHandler, operation);
  }
  return serveWire(nc, service, wire, log, concurrency);
}

/** The transport under `serveRpc` with envelope handlers only (tests of the RPC layer itself). */
export function serveHandlers(
  nc: NatsConnection,
  service: ServiceName,
  handlers: Record<string, RpcHandler>,
  log: Logger,
  concurrency = 64,
): Subscription {
  const wire = Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [name, envelopeWire(handler)]),
  );
  return serveWire(nc, service, wire, log, concurrency);
}

/**
 * The envelope parsed; the query parsed by the operation's query schema (400 with its first
 * message, the handler never runs); where the operation names its 422 headline (`invalid`), the
 * body checked against its schema first (422 with the schema's messages) and handed on parsed.
 */
function envelopeWire(handler: RpcHandler, operation?: PublicOperation): WireHandler {
  return (payload, ctx) => {
    const request = rpcRequestSchema.parse(payload);
    if (operation?.params) {
      // The gateway fills them from the route; a caller that does not is the caller's bug.
      const params = validate(operation.params, request.params);
      if (!params.ok) throw new AppError('bad_request', 'Invalid path parameters', params.details);
    }
    const query = operation?.query ? parseQuery(operation.query, request) : request.query;
    if (!operation?.body || operation.invalid === undefined)
      return handler({ ...request, query }, ctx);
    const body = validate(operation.body, request.body);
    if (!body.ok) throw errors.invalid(operation.invalid, body.details);
    return handler({ ...request, query, body: body.value }, ctx);
  };
}

/**
 * The query string as the schema reads it: an empty value is no value; a repeated parameter
 * (`state[]=a&state[]=b`, which Express delivers as an array under `state`) is joined into the
 * comma form where the schema declares `state[]`; `expand` comes from the envelope, where the
 * gateway gathered both of its forms. Failing that, a 400 with the schema's first message.
 */
export function parseQuery<S extends z.ZodObject>(
  schema: S,
  request: Pick<RpcRequest, 'query' | 'expand'>,
): z.output<S> {
  const keys = new Set(Object.keys(schema.shape));
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.query)) {
    if (value === '' || value === undefined) continue;
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (keys.has(`${name}[]`)) {
      const values = [raw[name], value].flat().filter((v) => v !== undefined && v !== '');
      raw[name] = values.every((v) => typeof v === 'string') ? values.join(',') : values;
    } else {
      raw[key] = value;
    }
  }
  if (keys.has('expand')) {
    delete raw.expand;
    if (request.expand.length > 0) raw.expand = request.expand.join(',');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError('bad_request', parsed.error.issues[0]?.message ?? 'Invalid query parameter');
  }
  return parsed.data;
}

/** Bad input is the caller's bug, answered as a 400 with the schema's messages. */
function internalWire(
  operation: InternalOperation,
  handler: InternalHandler<InternalOperation>,
): WireHandler {
  return async (payload, ctx) => {
    const input = validate(operation.input, payload);
    if (!input.ok) {
      throw new AppError('bad_request', `Invalid input of ${operation.name}`, input.details);
    }
    const body: unknown = await handler(input.value, ctx);
    return { status: operation.response.status, body };
  };
}

function serveWire(
  nc: NatsConnection,
  service: ServiceName,
  handlers: Record<string, WireHandler>,
  log: Logger,
  concurrency: number,
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
      return await handler(decodeJson(msg.data), ctx);
    } catch (error) {
      if (isAppError(error)) return { status: error.status, body: error.toBody() };
      if (exceededTimeLimit(error)) {
        ctx.log.warn('a read ran past its time limit');
        // A read bounded by the time the caller waits (libs/mongo list-time-limit.ts): the
        // reply the gateway gives any slow service, a moment before it would give it itself.
        const timeout = new AppError(
          'timeout',
          `Service timed out: ${service}. Try again shortly.`,
        );
        return { status: timeout.status, body: timeout.toBody() };
      }
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

/** MongoDB's MaxTimeMSExpired: a command ran past its `maxTimeMS` (mongod and our local server). */
function exceededTimeLimit(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 50;
}
