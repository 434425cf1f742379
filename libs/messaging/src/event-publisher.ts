/**
 * Publishes domain events to JetStream with `Nats-Msg-Id = event.id`, so a relay that
 * publishes the same event twice (after a crash) stores it once.
 */
import { SpanKind, context, metrics, trace } from '@opentelemetry/api';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as createHeaders, type NatsConnection } from '@nats-io/nats-core';
import { HEADERS, publishSubject } from '@aff/contracts';
import type { EventEnvelope } from '@aff/contracts';
import { injectTraceContext } from './trace-context';
import { encodeJson } from './json';

/** Trace and request context stored next to an outbox event, so a late relay keeps the trace. */
export interface EventContext {
  traceparent?: string;
  tracestate?: string;
  request_id?: string;
}

const tracer = trace.getTracer('@aff/messaging');
const meter = metrics.getMeter('affiliate-platform');
/** State changes of money records, counted where their events leave the service. */
const stateChanges = {
  commission: meter.createCounter('affiliate.commission.state_changes', {
    description: 'Commission events published (created, updated, paid, voided)',
    unit: '{event}',
  }),
  payout: meter.createCounter('affiliate.payout.state_changes', {
    description: 'Payout events published (created, updated, due, paid)',
    unit: '{event}',
  }),
};

export class EventPublisher {
  private readonly js: JetStreamClient;
  constructor(nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  async publish(event: EventEnvelope, stored?: EventContext): Promise<void> {
    const subject = publishSubject(event);
    const hdrs = createHeaders();
    if (stored?.traceparent) {
      hdrs.set(HEADERS.traceparent, stored.traceparent);
      if (stored.tracestate) hdrs.set(HEADERS.tracestate, stored.tracestate);
    }
    const span = tracer.startSpan(`${subject} publish`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.message.id': event.id,
      },
    });
    try {
      if (!stored?.traceparent) injectTraceContext(hdrs, trace.setSpan(context.active(), span));
      if (stored?.request_id) hdrs.set(HEADERS.requestId, stored.request_id);
      // Read by consumers before they decode (ConsumerOptions.skipMerchant).
      hdrs.set(HEADERS.merchantId, event.merchant_id);
      await this.js.publish(subject, encodeJson(event), { msgID: event.id, headers: hdrs });
      const aggregate = event.type.split('.')[0];
      if (aggregate === 'commission' || aggregate === 'payout')
        stateChanges[aggregate].add(1, { 'event.type': event.type });
    } finally {
      span.end();
    }
  }
}

/** The current trace context as plain strings, to store with an outbox event. */
export function currentEventContext(requestId?: string): EventContext {
  const carrier: Record<string, string> = {};
  const hdrs = injectTraceContext();
  for (const key of hdrs.keys()) carrier[key.toLowerCase()] = hdrs.get(key);
  return {
    ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  };
}
