/** Carries W3C trace context through NATS message headers in both directions. */
import { context, propagation, type Context } from '@opentelemetry/api';
import { headers as createHeaders, type MsgHdrs } from '@nats-io/nats-core';

export function injectTraceContext(
  target: MsgHdrs = createHeaders(),
  ctx = context.active(),
): MsgHdrs {
  propagation.inject(ctx, target, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  return target;
}

export function extractTraceContext(source: MsgHdrs | undefined): Context {
  if (!source) return context.active();
  return propagation.extract(context.active(), source, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}
